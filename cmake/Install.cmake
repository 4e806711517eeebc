# Installing cudalab as a lab machine would: `cmake --install build/default --prefix /opt/cudalab`,
# or the .deb of cmake/Packaging.cmake. GNUInstallDirs layout under one prefix:
#   bin/cudalab                          the CLI
#   lib/cudalab/                         the runners, libcudalab_sim.so, cudalab-grading
#   share/cudalab/exercises/NN_name/     README.md and kernel.cu: what `cudalab init DIR` copies
#   share/cudalab/solutions/             the reference solutions and speed-ladder steps
#   share/cudalab/sim-include/           the simulator's CUDA headers
#   share/cudalab/grading/rubric.toml    the default rubric
#   share/doc/cudalab/                   README.md, docs/, grading/ (README, CI and Gradescope
#                                        templates), html/ (the Doxygen pages, when they were built)
# The programs find each other and the data through the relative paths computed here (compiled
# into harness/src/support/paths.cpp), so the prefix can be chosen at install time and nothing
# points back into the source tree.
#
# Components. A plain `cmake --install` is a student's install, the runtime alone (what `cudalab
# export` gives students); solutions and grading come only where asked for (EXCLUDE_FROM_ALL), with
# `--component solutions` / `--component grading`, or as their own .deb packages:
#   runtime    the CLI, runners, simulator, exercises, docs
#   solutions  share/cudalab/solutions/
#   grading    cudalab-grading, the rubric, the grading docs and templates (instructors)
include(GNUInstallDirs)

set(CUDALAB_INSTALL_PROGRAMSDIR "lib/cudalab" CACHE STRING
    "Where cudalab's runners, simulator runtime and cudalab-grading are installed, relative to the prefix")
set(CUDALAB_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/cudalab")
set(CUDALAB_INSTALL_DOCDIR "${CMAKE_INSTALL_DOCDIR}")
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME runtime)

foreach(dir CMAKE_INSTALL_BINDIR CUDALAB_INSTALL_PROGRAMSDIR CUDALAB_INSTALL_DATADIR)
  if(IS_ABSOLUTE "${${dir}}")
    message(FATAL_ERROR "cudalab: ${dir} (${${dir}}) must be relative to the prefix: an installed cudalab "
                        "finds its parts relative to itself")
  endif()
endforeach()

# bin/ -> lib/cudalab and lib/cudalab -> share/cudalab, the same under any prefix ("/p" stands for it).
file(RELATIVE_PATH CUDALAB_INSTALL_BIN_TO_PROGRAMS "/p/${CMAKE_INSTALL_BINDIR}" "/p/${CUDALAB_INSTALL_PROGRAMSDIR}")
file(RELATIVE_PATH CUDALAB_INSTALL_PROGRAMS_TO_DATA "/p/${CUDALAB_INSTALL_PROGRAMSDIR}" "/p/${CUDALAB_INSTALL_DATADIR}")
foreach(rel CUDALAB_INSTALL_BIN_TO_PROGRAMS CUDALAB_INSTALL_PROGRAMS_TO_DATA)
  if("${${rel}}" STREQUAL "")
    set(${rel} ".")
  endif()
endforeach()

# The course data. Exercises: what a student gets (the trusted task.cpp is compiled into cudalab).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/exercises/ DESTINATION ${CUDALAB_INSTALL_DATADIR}/exercises
        COMPONENT runtime FILES_MATCHING PATTERN "*.md" PATTERN "*.cu" PATTERN "*.cuh")
# The students' distribution (`cudalab export`) has no solutions/.
if(EXISTS ${PROJECT_SOURCE_DIR}/solutions)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/solutions/ DESTINATION ${CUDALAB_INSTALL_DATADIR}/solutions
          COMPONENT solutions EXCLUDE_FROM_ALL)
endif()

# Documentation, laid out as in the source tree so that the README's links (docs/…, grading/…) work.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CUDALAB_INSTALL_DOCDIR} COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CUDALAB_INSTALL_DOCDIR}/docs COMPONENT runtime)
# The Doxygen pages only when `cmake --build build/default --target docs` has made them.
install(DIRECTORY ${CMAKE_BINARY_DIR}/docs/html/ DESTINATION ${CUDALAB_INSTALL_DOCDIR}/html COMPONENT runtime
        OPTIONAL)
