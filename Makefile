# The two commands of the README, plus validation and benchmarks.
# Every target installs missing Debian packages first (scripts/install-deps.sh).
.PHONY: demo test docs validate bench bench-fricdem bench-lammps bench-chute bench-ranks build deps clean fuzz

JOBS ?= 2

deps:
	@./scripts/install-deps.sh

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

demo: build
	@./scripts/demo.sh

# The API reference of the public headers (Doxygen, docs/api/Doxyfile) in
# build/docs/api/html; a header without its comments is an error.
docs: deps
	@mkdir -p build/docs/api
	@doxygen docs/api/Doxyfile
	@echo "docs: build/docs/api/html/index.html"

# The API reference first (warnings are errors), then the suite twice:
# optimised (the test preset), then under AddressSanitizer and
# UndefinedBehaviorSanitizer (the sanitize preset, -O1, float-cast-overflow,
# no recovery): every source file runs under both (issue 11).
test: docs
	@cmake --preset test >/dev/null
	@cmake --build --preset test -j $(JOBS)
	@ctest --preset test -j $(JOBS)
	@cmake --preset sanitize >/dev/null
	@cmake --build --preset sanitize -j $(JOBS)
	@ctest --preset sanitize -j $(JOBS)

validate: build
	@/usr/bin/python3 scripts/validate.py

# fricdem's own benchmarks, then fricdem against LAMMPS and LIGGGHTS on the
# same settled pile, then the chute flow of LAMMPS's bench/in.chute in both,
# in the same session (installs the peers from Debian if missing;
# bench/README.md), two MPI ranks against one process and the communication
# model of docs/mpi.md, then what the HDF5 trajectory costs per frame.
# `make bench-fricdem` skips the peer engines.
bench: build
	@./bench/run.sh
	@./bench/lammps_compare.sh
	@./bench/chute/chute_compare.sh
	@./bench/ranks_compare.sh
	@./bench/mpi_model.py
	@./bench/trajectory_cost.sh

bench-fricdem: build
	@./bench/run.sh

bench-lammps: build
	@./bench/lammps_compare.sh

bench-chute: build
	@./bench/chute/chute_compare.sh

bench-ranks: build
	@./bench/ranks_compare.sh
	@./bench/mpi_model.py

# Fuzzes the scene loader (FUZZ_TARGET=scene) or the LAMMPS deck importer
# (FUZZ_TARGET=lammps) with libFuzzer for FUZZ_SECONDS (installs clang if
# missing; scripts/fuzz.sh). Not part of `make test`: a campaign takes hours.
FUZZ_SECONDS ?= 600
FUZZ_TARGET ?= scene
fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGET=$(FUZZ_TARGET) ./scripts/fuzz.sh

clean:
	rm -rf build out validation/out validation/report.md validation/figures bench/out
