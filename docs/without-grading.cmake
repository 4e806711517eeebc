# Doxygen's input filter for the Markdown pages of a students' distribution, which has no grading/
# (`cudalab export` leaves it out): a link into grading/ becomes its text, so that the site builds,
# without warnings, from what the students have. Used only where grading/ is absent (FILTER_PATTERNS
# in the top-level CMakeLists.txt); in a full clone such a link must resolve.
#   cmake -P docs/without-grading.cmake PAGE.md
set(page "${CMAKE_ARGV3}")
if(NOT EXISTS "${page}")
  message(FATAL_ERROR "usage: cmake -P without-grading.cmake PAGE.md")
endif()
file(READ "${page}" text)
string(REGEX REPLACE "\\[([^]]*)\\]\\([./]*grading/[^)]*\\)" "\\1" text "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E echo_append "${text}")
