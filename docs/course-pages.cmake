# Doxygen's input filter for docs/course.md (FILTER_PATTERNS in the top-level CMakeLists.txt):
#   cmake -P docs/course-pages.cmake docs/course.md
# prints the page with its "exercise pages" comment replaced by one \subpage per exercise folder,
# exercises/NN_name/README.md in folder order. The READMEs stay the one source of each exercise's
# page, and a new folder is listed without editing the page.
set(page "${CMAKE_ARGV3}")
if(NOT EXISTS "${page}")
  message(FATAL_ERROR "usage: cmake -P course-pages.cmake PAGE.md")
endif()
get_filename_component(root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
file(GLOB readmes RELATIVE "${root}" "${root}/exercises/[0-9][0-9]_*/README.md")
list(SORT readmes)
set(list "")
foreach(readme IN LISTS readmes)
  # Doxygen's label of a Markdown page is md_ and its path with / and . as _: md_exercises_01_increment_README.
  string(REGEX REPLACE "\\.md$" "" label "${readme}")
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" label "${label}")
  string(APPEND list "- \\subpage md_${label}\n")
endforeach()
file(READ "${page}" text)
# The marker is replaced literally: a regex replacement would read the backslashes of \subpage.
string(REGEX MATCH "<!-- exercise pages:[^>]*-->\n?" marker "${text}")
if(NOT marker)
  message(FATAL_ERROR "${page} has no <!-- exercise pages: ... --> line to replace")
endif()
string(REPLACE "${marker}" "${list}" text "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E echo_append "${text}")
