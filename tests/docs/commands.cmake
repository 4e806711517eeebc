# Docs that cannot drift: every command of a fenced sh/bash/console block of README.md, the
# exercises' READMEs, grading/README.md and docs/ (pages found when the test runs) runs in a scratch
# copy of the project, with the exit code and the output's shape that the page shows. The Markdown
# convention (`<!-- docs-check: ... -->` markers) is described at the top of test_docs_commands.cpp.
add_executable(cudalab-test-docs-commands ${CMAKE_CURRENT_LIST_DIR}/test_docs_commands.cpp)
target_link_libraries(cudalab-test-docs-commands PRIVATE cudalab_core cudalab_tasks GTest::gtest_main)
target_compile_definitions(cudalab-test-docs-commands PRIVATE
  CUDALAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  CUDALAB_CLI="$<TARGET_FILE:cudalab>"
  CUDALAB_DOCS_CACHE_DIR="${CMAKE_BINARY_DIR}/test-docs-cache"
  CUDALAB_TEST_CACHE_DIR="${CMAKE_BINARY_DIR}/test-module-cache"  # its modules: the other test programs' (share_modules)
  CUDALAB_DOCS_SCRATCH_DIR="${CMAKE_CURRENT_BINARY_DIR}/scratch")
add_dependencies(cudalab-test-docs-commands cudalab)
if(TARGET cudalab-grading)  # `cudalab grade`, `report`, `merge` run it
  add_dependencies(cudalab-test-docs-commands cudalab-grading)
endif()
# The parser, the output comparison and a page of broken commands: seconds.
gtest_discover_tests(cudalab-test-docs-commands TEST_FILTER "-DocsCommands.EveryDocumentedCommandRunsAsShown"
                     TEST_PREFIX "docs." PROPERTIES LABELS "docs" DISCOVERY_TIMEOUT 60)
# Every page's commands: one to five minutes (a cold compile cache), two at a time (CUDALAB_DOCS_JOBS changes it).
add_test(NAME docs.DocsCommands.EveryDocumentedCommandRunsAsShown
         COMMAND cudalab-test-docs-commands --gtest_filter=DocsCommands.EveryDocumentedCommandRunsAsShown)
# One processor's worth (its two jobs kept 1.3 cores busy from a cold cache: 277 s wall, 350 s CPU),
# started early (COST, see naming.constexpr_case) so that other tests share the machine with it.
set_tests_properties(docs.DocsCommands.EveryDocumentedCommandRunsAsShown PROPERTIES LABELS "docs" COST 200 TIMEOUT 900)
