# SPDX-License-Identifier: MIT
# Shared by the view-*.sh tests that compare with babeltrace2 (sourced,
# bash): skip (77) without babeltrace2, make $strata absolute, a work
# directory removed at exit, the traces' directory as the current one (both
# tools print paths as given), TZ=UTC, pass/fail counters and helpers.
# Set `strata` (the binary) and `name` (for the work directory) first.

if ! command -v babeltrace2 >/dev/null 2>&1; then
	echo "SKIP: babeltrace2 is not installed (apt-get install babeltrace2)"
	exit 77
fi
if [ ! -x "$strata" ]; then
	echo "FAIL: strata binary '$strata' is not executable"
	exit 1
fi
strata=$(cd "$(dirname "$strata")" && pwd)/$(basename "$strata")
if ! work=$(mktemp -d "${TMPDIR:-/tmp}/strata-$name.XXXXXX"); then
	echo "FAIL: cannot make a work directory under ${TMPDIR:-/tmp}"
	exit 1
fi
trap 'rm -rf "$work"' EXIT
cd "$(dirname "${BASH_SOURCE[0]}")/../traces" || exit 1
export TZ=UTC
pass=0
fail=0

# check CMD...: counts CMD's success or failure.
check() {
	if "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
}

# fails CODE NEEDLE ARG...: `strata view ARG...` exits CODE, with one
# "Error: ..." line on stderr mentioning NEEDLE and nothing on stdout.
fails() {
	local code=$1 needle=$2
	shift 2
	"$strata" view "$@" >"$work/st.out" 2>"$work/st.err"
	local rc=$? what="$*"
	if [ "$rc" != "$code" ] || [ -s "$work/st.out" ] ||
		[ "$(grep -c '^Error: ' "$work/st.err")" != 1 ] ||
		! grep -q -- "$needle" "$work/st.err"; then
		echo "FAIL: expected exit $code and one error naming '$needle' (got $rc): $what"
		head -n 3 "$work/st.err"
		return 1
	fi
	echo "PASS: exit $code: $what"
}
