# OpenBench style: `make EXE=path` builds the engine to that path.
EXE ?= cutoff

.PHONY: all clean

all:
	cargo build --release --bin cutoff
	cp target/release/cutoff $(EXE)

clean:
	cargo clean
