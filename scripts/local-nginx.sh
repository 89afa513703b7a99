# Sourced by demo.sh and record-progress.sh: a throwaway nginx on 127.0.0.1 serving $work/www.
#   start_local_nginx WORKDIR RATE   -> sets $port and $nginx_pid; files go in WORKDIR/www
#   stop_local_nginx
start_local_nginx() {
    local work=$1 rate=$2 candidate
    mkdir -p "$work/www" "$work/logs" "$work/tmp"
    port=""
    for candidate in $(seq 18080 18180); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
    done
    [ -n "$port" ] || { echo "no free port in 18080-18180" >&2; return 1; }
    cat > "$work/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 64; }
http {
    access_log $work/logs/access.log;
    client_body_temp_path $work/tmp/body;
    proxy_temp_path $work/tmp/proxy;
    fastcgi_temp_path $work/tmp/fastcgi;
    uwsgi_temp_path $work/tmp/uwsgi;
    scgi_temp_path $work/tmp/scgi;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$port;
        root $work/www;
        limit_rate $rate;
    }
}
CONF
    nginx -p "$work" -c "$work/nginx.conf" -e "$work/logs/error.log" &
    nginx_pid=$!
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nginx did not start:" >&2
    cat "$work/logs/error.log" >&2
    return 1
}

stop_local_nginx() {
    if [ -n "${nginx_pid:-}" ]; then
        kill "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
        nginx_pid=""
    fi
}
