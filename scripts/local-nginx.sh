# Sourced by demo.sh, record-progress.sh and the benchmarks: a throwaway nginx on 127.0.0.1, and
# the loopback port helpers they share.
#   free_port                          -> prints a free port in 18080-18180
#   wait_for_port PORT LOG             -> waits up to 10 s until PORT accepts; prints LOG and fails if not
#   start_local_nginx WORKDIR RATE [SERVER_DIRECTIVES]
#                                      -> serves WORKDIR/www (limit_rate RATE per connection, 0 for none),
#                                         sets $port and $nginx_pid; LOCAL_NGINX_ACCESS_LOG=off turns the
#                                         access log (WORKDIR/logs/access.log) off
#   stop_local_nginx
free_port() {
    local candidate
    for candidate in $(seq 18080 18180); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then echo "$candidate"; return 0; fi
    done
    echo "no free port in 18080-18180" >&2
    return 1
}

wait_for_port() {
    local port=$1 log=$2
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nothing accepts on 127.0.0.1:$port:" >&2
    cat "$log" >&2
    return 1
}

start_local_nginx() {
    local work=$1 rate=$2 extra=${3:-}
    local access_log="${LOCAL_NGINX_ACCESS_LOG:-$work/logs/access.log}"
    mkdir -p "$work/www" "$work/logs" "$work/tmp"
    port="$(free_port)"
    cat > "$work/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 8192; }
http {
    access_log $access_log;
    client_body_temp_path $work/tmp/body;
    proxy_temp_path $work/tmp/proxy;
    fastcgi_temp_path $work/tmp/fastcgi;
    uwsgi_temp_path $work/tmp/uwsgi;
    scgi_temp_path $work/tmp/scgi;
    default_type application/octet-stream;
    sendfile on;
    keepalive_requests 100000;
    server {
        listen 127.0.0.1:$port;
        root $work/www;
        limit_rate $rate;
        $extra
    }
}
CONF
    nginx -p "$work" -c "$work/nginx.conf" -e "$work/logs/error.log" &
    nginx_pid=$!
    wait_for_port "$port" "$work/logs/error.log"
}

stop_local_nginx() {
    if [ -n "${nginx_pid:-}" ]; then
        kill "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
        nginx_pid=""
    fi
}
