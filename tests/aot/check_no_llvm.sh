#!/usr/bin/env bash
# Fails unless each executable given is free of LLVM and of the Tessera compiler: no LLVM shared
# library among its dependencies (ldd) and no LLVM or compiler symbol inside it (nm).
#   check_no_llvm.sh <executable>...
set -euo pipefail
status=0
for exe in "$@"; do
  if ldd "$exe" | grep -i llvm; then
    echo "$exe depends on LLVM"
    status=1
  fi
  if nm -C "$exe" | grep -E -i "llvm|tessera::(lang|lowering|targets|ir)::"; then
    echo "$exe contains LLVM or Tessera compiler symbols"
    status=1
  fi
  # The runtime must be there: the library carried it. (Not grep -q: it would stop reading early,
  # and nm's broken pipe would fail the pipeline.)
  if ! nm "$exe" | grep " T tessera_do_par_for" > /dev/null; then
    echo "$exe lacks the runtime"
    status=1
  fi
  [ $status -eq 0 ] && echo "$exe: no LLVM, no compiler, runtime present"
done
exit $status
