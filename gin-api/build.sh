#!/bin/sh
# Builds bin/gin-api offline from Debian's Go packages (GOPATH mode: the module proxy is out of
# reach). The app's own packages are the import path "forum", a link in bin/gopath to this folder.
set -eu
cd "$(dirname "$0")"
here="$(pwd)"
if ! command -v go >/dev/null || ! test -d /usr/share/gocode/src/github.com/graph-gophers/graphql-go; then
  echo "gin-api: Go or its libraries are missing: ./testbed setup installs them from Debian (benchlib/packages.py, DEBIAN[\"go\"])" >&2
  exit 1
fi
mkdir -p bin/gopath/src
ln -sfn ../../.. bin/gopath/src/forum
version() { dpkg-query -W -f='${Version}' "$1"; }
stamp="-X forum/internal/loaded.graphqlGoPackage=golang-github-graph-gophers-graphql-go-dev=$(version golang-github-graph-gophers-graphql-go-dev)"
stamp="$stamp -X forum/internal/loaded.mysqlDriverPackage=golang-github-go-sql-driver-mysql-dev=$(version golang-github-go-sql-driver-mysql-dev)"
stamp="$stamp -X forum/internal/loaded.gqlparserPackage=golang-github-vektah-gqlparser-dev=$(version golang-github-vektah-gqlparser-dev)"
stamp="$stamp -X forum/internal/loaded.ginPackage=golang-github-gin-gonic-gin-dev=$(version golang-github-gin-gonic-gin-dev)"
cd bin/gopath/src/forum
GO111MODULE=off GOPATH="$here/bin/gopath:/usr/share/gocode" GOFLAGS= go build -trimpath -ldflags "$stamp" -o "$here/bin/gin-api" .
