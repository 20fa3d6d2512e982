#!/bin/sh
# gofmt and go vet first, then go test against the real database and the real process
# (bin/forum-api, built by build.sh), in the GOPATH mode the build uses.
set -eu
cd "$(dirname "$0")"
./build.sh
test -z "$(gofmt -l .)" || { gofmt -l .; echo "{{NAME}}-api: gofmt would change these files" >&2; exit 1; }
here="$(pwd)"
cd bin/gopath/src/forum
export GO111MODULE=off GOPATH="$here/bin/gopath:/usr/share/gocode" GOFLAGS=
go vet ./...
go test -count=1 -timeout 120s ./...
