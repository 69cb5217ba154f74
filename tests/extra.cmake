# Tests that are not cmocka programs (included at the end of tests/CMakeLists.txt).
#
# install/example: install this build into a temporary prefix, build examples/
# against it with CMake (find_package) and with pkg-config, run every build and
# check the output (tests/install/run.sh). Label `install`; the asan-ubsan preset
# leaves it out, and sanitizer builds do not define it at all: a sanitized
# libmemcgsim.so needs a sanitized executable, which is not what a user builds.
if(NOT MSIM_ASAN AND NOT MSIM_TSAN)
  add_test(NAME install/example
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/run.sh
            ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${CMAKE_COMMAND})
  set_tests_properties(install/example PROPERTIES
    LABELS install
    TIMEOUT 300
    ENVIRONMENT "CC=${CMAKE_C_COMPILER};MSIM_EXPECT_VERSION=${PROJECT_VERSION}")
endif()

# report/screenshot: `memcgsim report --quick` opened in headless Chromium at
# 1400 px: every thread's section opens with its table, no empty or repeated id,
# no table wider than the page, and a screenshot with content, kept as
# report-screenshot.png in the build directory (tests/report/screenshot.sh).
# report/screenshot-catches-*: the same check on a page with a planted fault must
# fail and name it. Skipped (exit 77) where /usr/bin/chromium is not installed,
# except under CI=true (scripts/install-deps.sh installs it there).
add_test(NAME report/screenshot
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/report/screenshot.sh ${PROJECT_BINARY_DIR})
set_tests_properties(report/screenshot PROPERTIES
  LABELS bench-smoke SKIP_RETURN_CODE 77 TIMEOUT 300)
foreach(plant empty-id no-thread-table wide-table)
  add_test(NAME report/screenshot-catches-${plant}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/report/screenshot.sh ${PROJECT_BINARY_DIR} ${plant})
  set_tests_properties(report/screenshot-catches-${plant} PROPERTIES
    LABELS bench-smoke SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# kernel/oracle: every `memcgsim oracle` experiment at its small size, Debian's Linux
# 6.12 under QEMU against the model (tests/kernel/run.sh, docs/oracle.md). Label
# `kernel`; skipped (77) where QEMU or the kernel package cannot be had, a failure
# under CI=true. Not in sanitizer builds: the guest boots dominate and the model's
# side is the same code the other suites check there.
if(NOT MSIM_ASAN AND NOT MSIM_TSAN)
  add_test(NAME kernel/oracle
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/kernel/run.sh ${PROJECT_BINARY_DIR}
            ${PROJECT_SOURCE_DIR})
  set_tests_properties(kernel/oracle PROPERTIES
    LABELS kernel SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()

# bench-program/NAME: each bench program (bench/CMakeLists.txt) prints its --help
# and exits 0, so it finds the engine its file name promises.
get_property(msim_bench_programs GLOBAL PROPERTY MSIM_BENCH_PROGRAMS)
foreach(prog ${msim_bench_programs})
  add_test(NAME bench-program/${prog} COMMAND ${prog} --help)
  set_tests_properties(bench-program/${prog} PROPERTIES
    LABELS bench-smoke TIMEOUT 60 FAIL_REGULAR_EXPRESSION "no bench named")
endforeach()
