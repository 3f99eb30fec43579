#!/bin/bash
# installed_headers_test.sh BUILD_DIR - installs the build into a temporary
# prefix and checks that the installed headers promise only what the
# installed libraries hold:
#   - every function an installed header declares (gcc -aux-info lists them,
#     extern ones only: a static inline one needs no library) is referenced
#     by a generated consumer, which must compile and link against the
#     installed libraries: libratelab shared and static, and, when the Redis
#     backend was installed, libratelab_redis through ratelab-redis.pc;
#   - the Redis backend is installed whole or not at all (redis.h,
#     fleet_node.h, libratelab_redis.a, ratelab-redis.pc, ratelabRedis.cmake);
#   - libratelab_redis uses nothing of libratelab but its public API: each
#     rl_ symbol it leaves undefined is declared by an installed core header.
set -u
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || fail "cmake --install: $(cat "$tmp/install.log")"
inc=$prefix/include
pc=$(find "$prefix" -name ratelab.pc) && [ -n "$pc" ] || fail "no ratelab.pc"
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH=$libdir/pkgconfig

# The Redis backend: all of its parts, or none.
redis_parts="$inc/ratelab/redis.h $inc/ratelab/fleet_node.h $libdir/libratelab_redis.a
	$libdir/pkgconfig/ratelab-redis.pc $libdir/cmake/ratelab/ratelabRedis.cmake"
present=0 total=0
for f in $redis_parts; do
	total=$((total + 1))
	[ -e "$f" ] && present=$((present + 1))
done
[ $present -eq 0 ] || [ $present -eq $total ] || fail "the Redis backend is installed in part ($present of $total): $redis_parts"
with_redis=$([ $present -eq $total ] && echo 1 || echo 0)

# The extern functions each installed header declares (its own, not those
# of the headers it includes): NAME lines in $tmp/names.<core|redis>.
redis_headers=" redis.h fleet_node.h "
: >"$tmp/names.core"
: >"$tmp/names.redis"
for h in "$inc"/ratelab/*.h; do
	base=$(basename "$h")
	[ "$base" = algo_list.h ] && continue # the list algo.h includes with RL_ALGO defined
	echo "#include \"ratelab/$base\"" >"$tmp/one.c"
	gcc -std=c11 -fsyntax-only -I"$inc" -aux-info "$tmp/aux" "$tmp/one.c" 2>"$tmp/cc.log" ||
		fail "ratelab/$base does not compile alone: $(cat "$tmp/cc.log")"
	side=core
	case $redis_headers in *" $base "*) side=redis ;; esac
	grep -F "/* $h:" "$tmp/aux" | grep -v ' static ' |
		sed -E 's/.*[ *]([A-Za-z_][A-Za-z0-9_]*) \(.*/\1/' >>"$tmp/names.$side"
done
sort -u -o "$tmp/names.core" "$tmp/names.core"
sort -u -o "$tmp/names.redis" "$tmp/names.redis"
[ "$(wc -l <"$tmp/names.core")" -ge 40 ] || fail "only $(wc -l <"$tmp/names.core") functions found in the core headers"
grep -qx rl_limiter_init "$tmp/names.core" || fail "rl_limiter_init not among the declared functions"

# consumer SIDE...: a program that takes the address of every function of the sides.
consumer() {
	{
		for h in "$inc"/ratelab/*.h; do
			base=$(basename "$h")
			[ "$base" = algo_list.h ] && continue
			case $redis_headers in *" $base "*) [ "$with_redis" = 1 ] || continue ;; esac
			echo "#include \"ratelab/$base\""
		done
		echo "#include <stdio.h>"
		echo "typedef void (*any_fn)(void);"
		echo "static const any_fn refs[] = {"
		for side in "$@"; do sed 's/.*/\t(any_fn)&,/' "$tmp/names.$side"; done
		echo "};"
		echo 'int main(void) { printf("%zu\n", sizeof(refs) / sizeof(refs[0])); return 0; }'
	} >"$tmp/consumer.c"
}

consumer core
want=$(wc -l <"$tmp/names.core")
cc -std=c11 -Wall -Werror "$tmp/consumer.c" -o "$tmp/shared" $(pkg-config --cflags --libs ratelab) \
	-Wl,-rpath,"$libdir" 2>"$tmp/cc.log" || fail "the core's functions against libratelab.so: $(cat "$tmp/cc.log")"
[ "$("$tmp/shared")" = "$want" ] || fail "shared consumer: $("$tmp/shared")"
cc -std=c11 -Wall -Werror "$tmp/consumer.c" -o "$tmp/static" $(pkg-config --cflags ratelab) \
	"$libdir/libratelab.a" -pthread 2>"$tmp/cc.log" ||
	fail "the core's functions against libratelab.a: $(cat "$tmp/cc.log")"
[ "$("$tmp/static")" = "$want" ] || fail "static consumer: $("$tmp/static")"

if [ "$with_redis" = 1 ]; then
	[ -s "$tmp/names.redis" ] || fail "redis.h and fleet_node.h declare no function"
	consumer core redis
	want=$(($(wc -l <"$tmp/names.core") + $(wc -l <"$tmp/names.redis")))
	cc -std=c11 -Wall -Werror "$tmp/consumer.c" -o "$tmp/redis" $(pkg-config --cflags ratelab-redis) \
		"$libdir/libratelab_redis.a" "$libdir/libratelab.a" $(pkg-config --libs hiredis) -pthread 2>"$tmp/cc.log" ||
		fail "the Redis backend's functions against libratelab_redis.a: $(cat "$tmp/cc.log")"
	[ "$("$tmp/redis")" = "$want" ] || fail "redis consumer: $("$tmp/redis")"
	# its undefined rl_ symbols: the core's public functions only
	# (those its own members define are its own business)
	nm --defined-only "$libdir/libratelab_redis.a" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/own"
	nm -u "$libdir/libratelab_redis.a" | awk '$1 == "U" && $2 ~ /^rl_/ { print $2 }' | sort -u |
		comm -23 - "$tmp/own" >"$tmp/used"
	cat "$tmp/names.core" "$tmp/names.redis" | sort -u >"$tmp/public"
	private=$(comm -23 "$tmp/used" "$tmp/public")
	[ -z "$private" ] || fail "libratelab_redis uses what no installed header declares: $private"
fi
echo "installed_headers: $(wc -l <"$tmp/names.core") core functions, $(wc -l <"$tmp/names.redis") Redis ones (installed: $with_redis), all linked"
