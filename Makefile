# The build OpenBench's client runs (`make -j EXE=<name or path> [EVALFILE=<net>]` in the
# repository root): a release build of the `cutoff` binary, copied to EXE. EVALFILE builds
# that chess net into the binary in place of nets/default.nnue (build.rs reads it as
# CUTOFF_EVALFILE); the binary is then checked to evaluate with that file: the engine's
# own loader reads it (a bad net fails the build with its reason), and the bench of the
# built-in net must equal the bench with the file given as --evalfile. FEATURES: cargo
# features of the build (`FEATURES=cutoff-cli/tune`: the tuning build, docs/tuning.md; a
# branch for OpenBench's SPSA sets its default here).
EXE ?= cutoff
EVALFILE ?=
FEATURES ?=
CARGO ?= cargo
BUILD := $(CARGO) build --release --bin cutoff $(if $(strip $(FEATURES)),--features "$(FEATURES)")
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
BUILT := $(TARGET_DIR)/release/cutoff
# Depth of the check's two benches: a few seconds at most.
CHECK_DEPTH := 3

.PHONY: all clean

all:
ifeq ($(strip $(EVALFILE)),)
	env -u CUTOFF_EVALFILE $(BUILD)
	cp $(BUILT) $(EXE)
else
	CUTOFF_EVALFILE="$(abspath $(EVALFILE))" $(BUILD)
	cp $(BUILT) $(EXE)
	@built=$$($(BUILT) bench $(CHECK_DEPTH) | tail -n 1 | cut -d' ' -f2) && \
	given=$$($(BUILT) bench $(CHECK_DEPTH) --evalfile "$(abspath $(EVALFILE))" | tail -n 1 | cut -d' ' -f2) && \
	if [ "$$built" = "$$given" ]; then \
		echo "EVALFILE $(EVALFILE) built in (bench $(CHECK_DEPTH): $$built nodes either way)"; \
	else \
		echo "error: the built-in net is not EVALFILE $(EVALFILE) (bench $(CHECK_DEPTH): $$built built in, $$given with the file)" >&2; \
		rm -f $(EXE); exit 1; \
	fi
endif

clean:
	$(CARGO) clean
