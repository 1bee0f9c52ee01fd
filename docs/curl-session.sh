#!/bin/sh
# The original phone app's whole life with nothing but curl against `vsh serve`: sign up, sign in,
# a profile picture, the hunt feed, a picture at a stop (with the phone's own fix), a retry of it,
# one's check-ins, the leaderboard, a public profile, a new e-mail address, sign out.
#   BASE   the service (default http://127.0.0.1:8080)
#   PHOTO  a JPEG taken at the stop (default the fixture of the Las Vegas sign)
#   NAME   the new player's name (default "Eve Park")
# Every step must answer 2xx (curl --fail), so the script doubles as a smoke test (make test runs it).
set -eu
BASE=${BASE:-http://127.0.0.1:8080}
PHOTO=${PHOTO:-Fixtures/photos/sign-inside.jpg}
NAME=${NAME:-Eve Park}
NAME_IN_PATH=$(printf '%s' "$NAME" | sed 's/ /%20/g')
api() { curl --fail-with-body -sS "$@"; echo; }
token() { sed -n 's/.*"token":"\([0-9a-f]*\)".*/\1/p'; }

echo "== sign up"
TOKEN=$(api -X POST "$BASE/v1/accounts" -H 'Content-Type: application/json' \
  -d "{\"username\":\"$NAME\",\"email\":\"eve@example.org\",\"password\":\"lucky sevens\"}" | token)
echo "token: $(printf '%.8s' "$TOKEN")…"
echo "== sign out, sign in again"
api -X DELETE "$BASE/v1/sessions/current" -H "Authorization: Bearer $TOKEN"
TOKEN=$(api -X POST "$BASE/v1/sessions" -H 'Content-Type: application/json' \
  -d "{\"username\":\"$NAME\",\"password\":\"lucky sevens\"}" | token)
AUTH="Authorization: Bearer $TOKEN"
echo "== profile picture (stored re-encoded, without the photo's GPS)"
api -X PUT "$BASE/v1/me/avatar" -H "$AUTH" -H 'Content-Type: image/jpeg' --data-binary @"$PHOTO"
echo "== the hunt feed, and one hunt's stops (GeoJSON)"
api "$BASE/v1/hunts" | cut -c1-200
api "$BASE/v1/hunts/strip-classics" | tr -d ' \n' | cut -c1-200; echo
echo "== a picture at a stop, with the phone's fix; then the same upload retried"
for attempt in first retry; do
  api "$BASE/v1/checkins" -H "$AUTH" -H 'Idempotency-Key: eve-sign-1' \
    -F photo=@"$PHOTO" -F lat=36.08201 -F lon=-115.17273 -F accuracy_m=8 -F fix_time=2026-11-21T19:31:00Z \
    | cut -c1-160
done
echo "== my check-ins"
api "$BASE/v1/me/checkins" -H "$AUTH"
echo "== the leaderboard"
api "$BASE/v1/leaderboard?limit=3"
echo "== a public profile and its picture"
api "$BASE/v1/players/$NAME_IN_PATH" | cut -c1-160
curl --fail -sS -o /dev/null -w '%{content_type}, %{size_download} bytes\n' "$BASE/v1/players/$NAME_IN_PATH/avatar"
echo "== a new e-mail address (the password is asked again)"
api -X PATCH "$BASE/v1/me" -H "$AUTH" -H 'Content-Type: application/json' \
  -d '{"current_password":"lucky sevens","email":"eve.park@example.org"}'
echo "== sign out"
api -X DELETE "$BASE/v1/sessions/current" -H "$AUTH"
curl -s -o /dev/null -w 'the token afterwards: %{http_code}\n' "$BASE/v1/me" -H "$AUTH"
