# The two commands of the README, plus the sanitizer presets. Each target installs
# missing Debian packages first (scripts/install-deps.sh says what it installs).
.PHONY: run test deps dev release asan tsan bench clean fuzz

deps:
	@scripts/install-deps.sh

dev: deps
	@cmake --preset dev >/dev/null
	@cmake --build --preset dev

release: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release

# Main job: the race demonstrations through the memcgsim command. It builds what
# it runs, the library and the command (the run preset: -O2, no debug info, no
# LTO, no test or bench programs), then times the demo (its last line).
run: deps
	@cmake --preset run >/dev/null
	@cmake --build --preset run --target memcgsim_cli memcgsim
	@build/run/memcgsim demo

# The whole ctest suite (Debug, warnings as errors).
test: dev
	@ctest --preset dev

asan: deps
	@cmake --workflow --preset asan-ubsan

tsan: deps
	@cmake --workflow --preset tsan

bench: release
	@build/release/memcgsim bench --help

# The fuzz targets of tests/fuzz (docs/reliability.md), each for FUZZ_SECONDS
# (CI: 45). Needs clang-14 and libclang-rt-14-dev, installed here if missing.
FUZZ_SECONDS ?= 600
fuzz:
	@MSIM_INSTALL_FUZZ=1 scripts/install-deps.sh
	@cmake --preset fuzz -DMSIM_FUZZ_SECONDS=$(FUZZ_SECONDS) >/dev/null
	@cmake --build --preset fuzz
	@ctest --preset fuzz

clean:
	rm -rf build
