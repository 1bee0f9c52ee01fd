# Sourced by the bench scripts: a private nginx (2 workers, no access log, its files in one folder).
# nginx_start FOLDER PORT SERVER_DIRECTIVES: writes FOLDER/nginx.conf with one server listening on
# 127.0.0.1:PORT made of SERVER_DIRECTIVES, and starts nginx on it (stop: kill "$(cat FOLDER/nginx.pid)").
nginx_start() {
  local folder=$1 port=$2 server=$3
  mkdir -p "$folder"
  cat > "$folder/nginx.conf" <<CONF
worker_processes 2;
pid $folder/nginx.pid;
error_log $folder/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  default_type application/json;
  client_body_temp_path $folder;
  proxy_temp_path $folder;
  fastcgi_temp_path $folder;
  uwsgi_temp_path $folder;
  scgi_temp_path $folder;
  server { listen 127.0.0.1:$port; $server }
}
CONF
  local nginx; nginx=$(command -v nginx || echo /usr/sbin/nginx)
  "$nginx" -c "$folder/nginx.conf" -p "$folder"
}
