#!/bin/bash
# page_check.sh PAGE WORKDIR - a report's page (sim/report/report_html.h) in
# headless Chromium, as a reader gets it: the policy names the hash of the
# page's one script, which runs under it (each header cell gets aria-sort);
# no console message; then, in a copy with a checking script added: every
# link of the table of contents resolves to a heading and every "##"
# heading is listed; every column of every table sorts (each click leaves
# the column ascending, the next descending, cells empty or "-" last; the
# check's own order model) and some click reorders rows; a table's
# summary rows (its <tfoot>: compare's geomean) stay its last rows, below
# every sorted row as drawn, after every click; every table's first column
# is pinned (position: sticky); nothing was fetched but data: URIs. Prints "page: ..." and exits 0, or prints "FAIL: ..." and exits 1.
# WORKDIR must exist; the check's files go there.
set -u
page=$1 work=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v chromium >/dev/null || fail "chromium is not installed: the page cannot be checked (make deps installs it)"

# the one script and the policy's hash of it
[ "$(grep -c '<script' "$page")" -eq 1 ] || fail "$page: $(grep -c '<script' "$page") scripts, want 1"
body=$(grep -o '<script>.*</script>' "$page" | sed 's|^<script>||; s|</script>$||')
hash=$(printf '%s' "$body" | openssl dgst -sha256 -binary | base64)
grep -q "script-src 'sha256-$hash'" "$page" ||
	fail "$page: the policy does not name the script's hash 'sha256-$hash' (sim/report/report_html.c script_sha256)"

chrome() { # PAGE OUT: the DOM after load in OUT, the log in OUT.err
	timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
		--enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom "file://$1" >"$2" 2>"$2.err" ||
		fail "chromium: exit $? on $1"
	grep -E 'CONSOLE|Refused to|ERR_|Uncaught' "$2.err" | grep -v 'dbus\|gpu' | head -3 >"$2.console"
	[ -s "$2.console" ] && fail "chromium: console messages on $1: $(cat "$2.console")"
	return 0
}
chrome "$page" "$work/dom"
grep -q 'aria-sort="none"' "$work/dom" || fail "the page's script did not run under its policy"

# the copy: the policy taken out (it would refuse the check), the check added
sed 's|<meta http-equiv="Content-Security-Policy"[^>]*>||; s|</body>||; s|</html>||' "$page" >"$work/check.html"
cat >>"$work/check.html" <<'EOF'
<script>window.addEventListener('load', function () {
  var bad = [], each = Array.prototype.forEach, A = function (l) { return Array.prototype.slice.call(l); };
  var links = A(document.querySelectorAll('nav.toc a'));
  links.forEach(function (a) {
    var h = a.getAttribute('href');
    if (h[0] !== '#' || !document.getElementById(h.slice(1))) bad.push('toc link ' + h);
  });
  var listed = links.map(function (a) { return a.getAttribute('href').slice(1); });
  each.call(document.querySelectorAll('h2'), function (h) { if (listed.indexOf(h.id) < 0) bad.push('h2 not in toc: ' + h.id); });
  var text = function (c) { return c ? c.textContent.trim() : ''; };
  var blank = function (s) { return s === '' || s === '-'; };
  var lead = function (s) { var m = /^[-+\u2212]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?/i.exec(s); return m ? parseFloat(m[0].replace('\u2212', '-')) : NaN; };
  var tables = A(document.querySelectorAll('table')), cols = 0, reordered = 0, sticky = 0, footers = 0;
  tables.forEach(function (t, ti) {
    var feet = t.tFoot ? A(t.tFoot.rows) : [];
    if (feet.length) footers++;
    // the summary rows: the same rows in the footer, drawn below the lowest sorted row
    var footLast = function (where) {
      var low = Math.max.apply(null, A(t.tBodies[0].rows).map(function (r) { return r.getBoundingClientRect().bottom; }));
      var now = t.tFoot ? A(t.tFoot.rows) : [];
      if (now.length !== feet.length || feet.some(function (r, i) { return r !== now[i] || r.getBoundingClientRect().top < low - 0.5; }))
        bad.push('table ' + ti + ' ' + where + ': a summary row is not last');
    };
    var first = t.rows[0].cells[0];
    if (getComputedStyle(first).position === 'sticky' && (t.rows.length < 2 || getComputedStyle(t.rows[1].cells[0]).position === 'sticky')) sticky++;
    var heads = A(t.tHead.rows[0].cells), before = A(t.tBodies[0].rows);
    heads.forEach(function (th, k) {
      var vals0 = before.map(function (r) { return text(r.cells[k]); });
      var num = vals0.every(function (s) { return blank(s) || !isNaN(lead(s)); });
      [1, -1].forEach(function (dir) {
        th.click();
        var rows = A(t.tBodies[0].rows), vals = rows.map(function (r) { return text(r.cells[k]); });
        if (rows.some(function (r, i) { return r !== before[i]; })) reordered++;
        var seenBlank = false;
        for (var i = 0; i < vals.length; i++) {
          if (blank(vals[i])) { seenBlank = true; continue; }
          if (seenBlank) { bad.push('table ' + ti + ' column ' + k + ': a value after a blank'); break; }
          if (i > 0 && !blank(vals[i - 1])) {
            var d = num ? lead(vals[i - 1]) - lead(vals[i]) : vals[i - 1].localeCompare(vals[i], undefined, {numeric: true});
            if (dir * d > 0) { bad.push('table ' + ti + ' column ' + k + ' ' + (dir > 0 ? 'ascending' : 'descending') + ': ' + vals[i - 1] + ' before ' + vals[i]); break; }
          }
        }
        if (th.getAttribute('aria-sort') !== (dir > 0 ? 'ascending' : 'descending')) bad.push('table ' + ti + ' column ' + k + ': aria-sort ' + th.getAttribute('aria-sort'));
        if (feet.length) footLast('column ' + k + (dir > 0 ? ' ascending' : ' descending'));
      });
      cols++;
    });
  });
  var fetched = performance.getEntriesByType('resource').filter(function (e) { return e.name.indexOf('data:') !== 0; });
  fetched.forEach(function (e) { bad.push('fetched ' + e.name); });
  var p = document.createElement('pre');
  p.textContent = 'RL-' + 'PAGE toc=' + links.length + ' tables=' + tables.length + ' sticky=' + sticky + ' columns=' + cols +
    ' reordered=' + reordered + ' footers=' + footers + ' bad=' + bad.length + (bad.length ? ': ' + bad.slice(0, 5).join('; ') : '');
  document.body.appendChild(p);
});</script>
</body>
</html>
EOF
chrome "$work/check.html" "$work/check.dom"
line=$(grep -o 'RL-PAGE [^<]*' "$work/check.dom" | sed 's/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g')
[ -n "$line" ] || fail "the check did not run in chromium"
set -- $line
toc=${2#toc=} tables=${3#tables=} sticky=${4#sticky=} reordered=${6#reordered=} bad=${8#bad=}
[ "${bad%:}" = 0 ] || fail "page: $line"
[ "$toc" -gt 0 ] || fail "page: no table of contents ($line)"
[ "$tables" -eq 0 ] || [ "$reordered" -gt 0 ] || fail "page: no click reordered a table ($line)"
[ "$sticky" = "$tables" ] || fail "page: $((tables - sticky)) table(s) without a pinned first column ($line)"
echo "page: ${line#RL-PAGE }"
