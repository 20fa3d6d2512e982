#!/bin/sh
# Builds bin/forum-api offline from Debian's Go packages (GOPATH mode: the module proxy is out of
# reach). A package of the app's own beside main takes the import path "forum/…": bin/gopath
# holds "forum" as a link to this folder.
set -eu
cd "$(dirname "$0")"
here="$(pwd)"
if ! command -v go >/dev/null || ! test -d /usr/share/gocode/src/github.com/gin-gonic/gin \
    || ! test -d /usr/share/gocode/src/github.com/go-sql-driver/mysql; then
  echo "{{NAME}}-api: Go or its libraries are missing: ./testbed setup installs them from Debian (benchlib/packages.py, DEBIAN[\"go\"])" >&2
  exit 1
fi
mkdir -p bin/gopath/src
ln -sfn ../../.. bin/gopath/src/forum
# GOPATH builds record no module versions: the Debian packages' are stamped into the binary for
# the start-up line.
version() { dpkg-query -W -f='${Version}' "$1"; }
stamp="-X main.ginPackage=golang-github-gin-gonic-gin-dev=$(version golang-github-gin-gonic-gin-dev)"
stamp="$stamp -X main.mysqlDriverPackage=golang-github-go-sql-driver-mysql-dev=$(version golang-github-go-sql-driver-mysql-dev)"
cd bin/gopath/src/forum
GO111MODULE=off GOPATH="$here/bin/gopath:/usr/share/gocode" GOFLAGS= go build -trimpath -ldflags "$stamp" -o "$here/bin/forum-api" .
