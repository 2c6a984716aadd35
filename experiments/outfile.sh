# shellcheck shell=sh
# outfile.sh -- how the experiments' shell scripts start an output in a
# results folder: never through a symbolic link planted where the output
# goes (the Python scripts' way is outfile.py).  Sourced, POSIX sh:
#
#   . "$(dirname "$0")/outfile.sh"
#   out_new PROG PATH... || exit 1
#
# out_new makes each PATH a new, empty regular file of this run's own, for
# the script's `>` and `>>` that follow:
# - a symbolic link at PATH is refused and named (its target is never
#   written, a link to a folder included), as outfile.py refuses one;
# - a folder at PATH is refused and named;
# - an earlier file at PATH is removed, not truncated: a name the file
#   shares with another (a hard link) keeps its content;
# - the file is then created with O_EXCL (the shell's noclobber), so that a
#   link planted meanwhile fails the creation instead of being followed.
# A refusal or a failed creation prints "PROG: PATH: REASON" on stderr and
# returns 1 at the first such PATH.

out_new() {
  _out_prog=$1
  shift
  for _out_path in "$@"; do
    if [ -L "$_out_path" ]; then
      printf '%s: %s: a symbolic link; an output is never written through one (remove it to write here)\n' \
        "$_out_prog" "$_out_path" >&2
      return 1
    fi
    if [ -d "$_out_path" ]; then
      printf '%s: %s: Is a directory\n' "$_out_prog" "$_out_path" >&2
      return 1
    fi
    rm -f -- "$_out_path" 2>/dev/null
    if ! _out_err=$( (set -C && : >"$_out_path") 2>&1); then
      printf '%s: %s: cannot be created (%s)\n' "$_out_prog" "$_out_path" \
        "${_out_err##*: }" >&2
      return 1
    fi
  done
  return 0
}
