# Sourced by scripts/package.sh and scripts/test-package.sh: what the packaged worker may take from the system.

# The libraries every Linux with glibc has, which a manylinux wheel may load from the system (PEP 600's policy,
# plus libz as issue #29 allows): package.sh bundles everything else the worker loads.
system_policy='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|librt|libpthread|libresolv|libutil|libstdc\+\+|libgcc_s|libz)\.so'

# Of those, the ones the worker is seen to load; anything more shows up in loads_outside and fails the check.
system_loaded='^(libc|libm|libstdc\+\+|libgcc_s|libz|libresolv)\.so'

# loads_outside BINARY FOLDER: each library BINARY would load (with an empty environment) from neither
# FOLDER/lib nor a system library of $system_loaded in /lib or /usr/lib, and any it cannot find; nothing when
# the closure is the package's own.
loads_outside() {
    local binary="$1" folder="$2" deps
    deps="$(env -i ldd "$binary")"
    echo "$deps" | grep "not found" || true
    echo "$deps" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r soname where; do
        case "$where" in "$folder/lib/"*) continue ;; esac
        [[ "$soname" =~ $system_loaded ]] && [[ "$where" == /lib* || "$where" == /usr/lib* ]] && continue
        echo "$soname => $where"
    done
}
