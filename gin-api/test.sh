#!/bin/sh
# go vet, then go test against the real database and the real process (bin/gin-api, built by
# build.sh), in the same GOPATH mode the build uses. The packages are named, not ./...: scaffold/
# is the template of ./testbed new, built and tested in the folder it makes (cli/test_new.py).
set -eu
cd "$(dirname "$0")"
./build.sh
here="$(pwd)"
cd bin/gopath/src/forum
export GO111MODULE=off GOPATH="$here/bin/gopath:/usr/share/gocode" GOFLAGS=
test -z "$(gofmt -l main.go internal)" || { gofmt -l main.go internal; echo "gin-api: gofmt would change these files" >&2; exit 1; }
go vet . ./internal/...
go test -count=1 -timeout 120s . ./internal/...
