#!/bin/sh
# The layer rules of docs/design.md, checked on the source tree (run by `make lint`, so by `make test`).
# Each check prints what breaks it and the script exits 1. KNOWN_* lists are the architecture step's
# open debts (docs/design.md, "Known debts"): each is one file that may break a rule until it is moved,
# and a new file breaking it fails at once.
set -u
cd "$(dirname "$0")/.."
failed=0
fail() { echo "check-layers: $*"; failed=1; }

# 1. The core does no I/O and uses no C: no C module, no Foundation file or process API.
KNOWN_CORE_C=""
KNOWN_CORE_IO=""
for f in $(grep -rlE '^(public |internal |@_implementationOnly )?import C[A-Z]' Sources/VSHCore); do
  case " $KNOWN_CORE_C " in *" $f "*) ;; *) fail "$f: the core imports a C module" ;; esac
done
for f in $(grep -rlE 'FileManager|ProcessInfo|FileHandle|Process\(|fopen\(|contentsOfFile|Data\(contentsOf' Sources/VSHCore); do
  case " $KNOWN_CORE_IO " in *" $f "*) ;; *) fail "$f: the core reads files, processes or the environment" ;; esac
done

# 2. A store adapter is imported only by the executables, their shared command support and the tests.
KNOWN_ADAPTER_USERS=""
for f in $(grep -rlE '^(public |internal )?import (VSHSpatiaLite|VSHPostGIS|VSHMemoryStore)$' Sources); do
  case "$f" in
    Sources/vsh/*|Sources/vsh-master/*|Sources/vsh-fuzz/*|Sources/VSHCommandSupport/*) ;;
    Sources/VSHSpatiaLite/*|Sources/VSHPostGIS/*|Sources/VSHMemoryStore/*) ;;
    *) case " $KNOWN_ADAPTER_USERS " in *" $(dirname "$f") "*) ;; *) fail "$f imports a store adapter" ;; esac ;;
  esac
done

# 3. SQL text lives in the two SQL adapters only (and VSHSQL, the conditions they share).
for f in $(grep -rlE '"[^"]*\b(SELECT [a-z*]|INSERT INTO|CREATE TABLE|DELETE FROM|UPDATE [a-z_]+ SET)' Sources --include=*.swift); do
  case "$f" in Sources/VSHSpatiaLite/*|Sources/VSHPostGIS/*|Sources/VSHSQL/*) ;; *) fail "$f holds SQL" ;; esac
done

# 4. Each C module is imported by its own adapter only.
check_c() { # module, allowed folder
  for f in $(grep -rlE "^(public |internal |@_implementationOnly )?import $1\$" Sources); do
    case "$f" in $2/*) ;; *) case " $KNOWN_CORE_C " in *" $f "*) ;; *) fail "$f imports $1" ;; esac ;; esac
  done
}
check_c CSpatiaLite Sources/VSHSpatiaLite
check_c CExif Sources/VSHPhoto
check_c CJPEG Sources/VSHPhoto
check_c CHEIF Sources/VSHHEIF
check_c CProj Sources/VSHGeodesy
check_c CLibXML2 Sources/VSHXML
check_c CICU Sources/VSHConfusables

# 5. Nothing a user reads points outside the repository.
if grep -rnE '\.\./shared|(^|[^a-z/])(API|DESIGN|STYLE)\.md' Sources docs README.md Makefile deploy corpus Fixtures 2>/dev/null; then
  fail "the lines above point outside the repository (the project's own documents are docs/api.md and docs/design.md)"
fi

# 6. Every module of the web app parses (Debian's nodejs; modules as modules, the service worker as a script).
for f in Sources/VSHServer/Web/*.js Sources/VSHServer/Web/pages/*.js; do
  case "$f" in
    */sw.js) node --check "$f" || fail "$f does not parse" ;;
    *) node --input-type=module --check < "$f" || fail "$f does not parse as a module" ;;
  esac
done

# 7. One escaper: markup text is escaped by the core's Markup only.
if grep -rn '"&amp;"' Sources --include=*.swift | grep -v '^Sources/VSHCore/JSON/Markup.swift:'; then
  fail "the lines above escape markup themselves (use Markup.escaped)"
fi

# 8. Libraries name no command-line flag in what they say: the command line adds its flags
#    (VSHCommandSupport's ErrorWords), the server its JSON fields.
LIBRARIES="Sources/VSHCore Sources/VSHEngine Sources/VSHSpatiaLite Sources/VSHPostGIS Sources/VSHSQL Sources/VSHMemoryStore
  Sources/VSHPhoto Sources/VSHAuthoring Sources/VSHAccounts Sources/VSHGeodesy Sources/VSHXML Sources/VSHHost"
if grep -rnE '"[^"]*--[a-z][a-z-]+[^"]*"' $LIBRARIES --include=*.swift | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//'; then
  fail "the lines above name a command-line flag in a library"
fi

# 9. Package.swift declares what each target imports, no more and no less.
if ! swift package dump-package | python3 scripts/check-dependencies.py; then
  fail "Package.swift and the imports above disagree"
fi

# 10. Exit codes and HTTP statuses belong to the edges: a library error says its kind (ErrorKind).
if grep -rnE '\bExitStatus\b|HTTPResponse\.Status' $LIBRARIES --include=*.swift | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//'; then
  fail "the lines above use an exit code or an HTTP status in a library (say an ErrorKind)"
fi

[ "$failed" = 0 ] && echo "check-layers: the layer rules hold"
exit "$failed"
