# Thin wrapper around Meson; every real rule lives in meson.build files.
PREFIX ?= /usr/local
BUILD ?= build
CHECK_BUILD ?= build-check
FUZZ_BUILD ?= build-fuzz
TSAN_BUILD ?= build-tsan
MESON ?= meson

.PHONY: all deps check test demo install fuzz tsan view-random bench format clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) --prefix=$(PREFIX)

deps:
	scripts/install-deps

# The README's test command: deps, an ASan+UBSan build, every test.
check: deps
	@test -f $(CHECK_BUILD)/build.ninja || \
		$(MESON) setup $(CHECK_BUILD) -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C $(CHECK_BUILD)
	$(MESON) test -C $(CHECK_BUILD) --print-errorlogs --num-processes 2

test: all
	$(MESON) test -C $(BUILD) --print-errorlogs

demo: deps all
	scripts/demo $(BUILD)

install: all
	$(MESON) configure $(BUILD) --prefix=$(PREFIX)
	$(MESON) install -C $(BUILD)

fuzz:
	@test -f $(FUZZ_BUILD)/build.ninja || \
		CC=clang $(MESON) setup $(FUZZ_BUILD) -Dfuzzing=true -Db_lundef=false \
			-Db_sanitize=address,undefined -Dc_args=-fsanitize=fuzzer-no-link
	ninja -C $(FUZZ_BUILD)
	scripts/run-fuzzers $(FUZZ_BUILD)

# ThreadSanitizer runs (TSan cannot share the ASan build of make check).
tsan:
	tests/stress/tsan.sh
	tests/stress/tsan-sessiond.sh $(TSAN_BUILD)

# strata view against babeltrace2 on SEEDS random traces from FIRST_SEED
# (make check runs seeds 1-40).
SEEDS ?= 2000
FIRST_SEED ?= 41
view-random: all
	tests/e2e/view-random.sh $(BUILD)/src/cli/strata $(FIRST_SEED) $(SEEDS)

bench: all
	bench/run-all $(BUILD)

format:
	git ls-files '*.c' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(CHECK_BUILD) $(FUZZ_BUILD) $(TSAN_BUILD)
