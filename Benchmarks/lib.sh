# Sourced by the benchmark scripts: the loopback helpers of scripts/local-nginx.sh, and
#   in_rotation ROUND NAME...  -> runs the functions NAME... once each, starting at the ROUND-th,
#                                 so no tool always follows the same one (a row that waits for the
#                                 disk suffers when it comes right after a big write whose
#                                 writeback the virtual disk is still digesting).
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/local-nginx.sh"

in_rotation() {
    local round=$1; shift
    local names=("$@") n=$# k
    for k in $(seq 0 $((n - 1))); do "${names[$(((k + round) % n))]}"; done
}
