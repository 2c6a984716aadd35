# shellcheck shell=sh
# gp_run.sh -- draws a benchmark figure so that no path, name or value is
# ever read as gnuplot code or shell code (experiments/README.md, "No shell
# ever parses a value").  Sourced by the experiments' shell scripts, not run.
#
#   gp_run GNUPLOT SCRIPT OUTBASE [file:NAME=PATH | VAR=VALUE]...
#
# Makes a temporary folder next to OUTBASE, copies each PATH there as NAME
# (a fixed name chosen by the caller, e.g. data.csv), writes params.gp with
# out = 'figure' and VAR = 'VALUE' for each value (single-quoted for gnuplot,
# ' written ''), runs `gnuplot params.gp SCRIPT` inside that folder (no -e:
# the scripts' system() calls see only the fixed names), moves figure.png
# and figure.pdf to OUTBASE.png and OUTBASE.pdf -- both or neither, only
# when gnuplot exited 0 and each is whole (gp_whole: gnuplot may exit 0 with
# a file cut short by a full disk or a file size limit) -- and removes the
# folder.  A value holding a newline or a carriage return is refused
# (message, 2).  Returns gnuplot's status (2 for a refused argument, 1 for a
# file error or a figure cut short).

# VALUE as a gnuplot single-quoted string; 1 (with a message) for a newline or CR
gp_quote() {
  case $1 in
  *"
"* | *"$(printf '\r')"*)
    echo "gp_run: a value holds a newline or carriage return: refused: $(printf '%s' "$1" | head -n 1)" >&2
    return 1
    ;;
  esac
  printf "'%s'" "$(printf '%s' "$1" | sed "s/'/''/g")"
}

# PATH made absolute (the figure is drawn from inside the temporary folder)
gp_abspath() {
  case $1 in
  /*) printf '%s' "$1" ;;
  *) printf '%s/%s' "$PWD" "$1" ;;
  esac
}

# FILE ends as its format says a whole file ends: a PDF in %%EOF, a PNG in its IEND chunk
gp_whole() {
  case $1 in
  *.pdf) tail -c 32 -- "$1" | grep -qa '%%EOF' ;;
  *.png) [ "$(tail -c 8 -- "$1" | od -An -tx1 | tr -d ' \n')" = 49454e44ae426082 ] ;;
  *) return 1 ;;
  esac
}

# copies or writes one argument of gp_run into the folder $1
gp_stage() {
  case $2 in
  file:*=*)
    gp_name=${2#file:}
    gp_name=${gp_name%%=*}
    case $gp_name in
    '' | *[!A-Za-z0-9_.-]* | .*)
      echo "gp_run: bad file name '$gp_name' (letters, digits, _ . -)" >&2
      return 2
      ;;
    esac
    cp -- "${2#file:*=}" "$1/$gp_name" || return 1
    ;;
  *=*)
    case ${2%%=*} in
    '' | [0-9]* | *[!A-Za-z0-9_]*)
      echo "gp_run: bad variable name '${2%%=*}'" >&2
      return 2
      ;;
    esac
    gp_q=$(gp_quote "${2#*=}") || return 2
    printf '%s = %s\n' "${2%%=*}" "$gp_q" >>"$1/params.gp" || return 1
    ;;
  *)
    echo "gp_run: argument is neither file:NAME=PATH nor VAR=VALUE: $2" >&2
    return 2
    ;;
  esac
}

gp_run() {
  gp_bin=$1
  case $gp_bin in */*) gp_bin=$(gp_abspath "$gp_bin") ;; esac
  gp_script=$(gp_abspath "$2")
  gp_out=$3
  shift 3
  gp_tmp=$(mktemp -d "$(dirname -- "$gp_out")/.gp_run.XXXXXX") || return 1
  printf "out = 'figure'\n" >"$gp_tmp/params.gp" || {
    rm -rf "$gp_tmp"
    return 1
  }
  for gp_arg in "$@"; do
    gp_stage "$gp_tmp" "$gp_arg" || {
      gp_rc=$?
      rm -rf "$gp_tmp"
      return $gp_rc
    }
  done
  # an if: a failing gnuplot under the caller's set -e still reaches the clean-up
  if (cd "$gp_tmp" && "$gp_bin" params.gp "$gp_script"); then gp_rc=0; else gp_rc=$?; fi
  for gp_fmt in png pdf; do
    if [ "$gp_rc" = 0 ] && [ -f "$gp_tmp/figure.$gp_fmt" ] && ! gp_whole "$gp_tmp/figure.$gp_fmt"; then
      echo "gp_run: $gp_out.$gp_fmt: gnuplot's file is cut short (a full disk or a file size limit?): no figure replaced" >&2
      gp_rc=1
    fi
  done
  for gp_fmt in png pdf; do
    if [ "$gp_rc" = 0 ] && [ -f "$gp_tmp/figure.$gp_fmt" ]; then
      mv -f -- "$gp_tmp/figure.$gp_fmt" "$gp_out.$gp_fmt" || gp_rc=1
    fi
  done
  rm -rf "$gp_tmp"
  return $gp_rc
}
