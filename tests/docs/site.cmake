# The documentation site (the `docs` target, top-level CMakeLists.txt): its main page renders in
# headless Chromium with its side bar in reading order, every link between its pages resolves,
# the course path lists every exercise's README, and every --help names a page that exists. The
# site is built by docs.doxygen_without_warnings (fixture docs_site), so `ctest -R docs` builds it
# first; without Doxygen or Chromium the tests that need them skip, saying which.
add_executable(cudalab-test-docs-site ${CMAKE_CURRENT_LIST_DIR}/test_docs_site.cpp)
target_link_libraries(cudalab-test-docs-site PRIVATE cudalab_core cudalab_tasks GTest::gtest_main)
target_compile_definitions(cudalab-test-docs-site PRIVATE
  CUDALAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  CUDALAB_CLI="$<TARGET_FILE:cudalab>"
  CUDALAB_DOCS_HTML_DIR="${CMAKE_BINARY_DIR}/docs/html")
add_dependencies(cudalab-test-docs-site cudalab)
if(TARGET cudalab-grading)  # `cudalab grade --help` and the others run it
  add_dependencies(cudalab-test-docs-site cudalab-grading)
endif()
gtest_discover_tests(cudalab-test-docs-site TEST_PREFIX "docs."
                     PROPERTIES LABELS "docs" FIXTURES_REQUIRED docs_site DISCOVERY_TIMEOUT 60)
