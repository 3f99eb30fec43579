#!/bin/bash
# The public headers ($1: algos/include/ratelab) name no compiler extension
# (__extension__ would silence -pedantic-errors in public_headers.c) and no
# glibc call: what is beyond C11 lives in algos/src/compat.h.
dir=$1
# code lines only: comments may name what the library does inside
bad=$(grep -nE '__extension__|__int128|__attribute__|__builtin|malloc_usable_size|getrandom' "$dir"/*.h |
	grep -vE '^[^:]+:[0-9]+:\s*(/?\*)')
[ -z "$bad" ] || { echo "FAIL: beyond C11 in a public header:"; echo "$bad"; exit 1; }
[ "$(ls "$dir"/*.h | wc -l)" -ge 15 ] || { echo "FAIL: headers not found in $dir"; exit 1; }
echo "public_headers: all checks passed"
