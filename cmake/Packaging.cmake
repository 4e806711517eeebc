# Debian packages of the install components (cmake/Install.cmake), one .deb per component:
#   flock /tmp/cudalab-build.lock cpack --config build/default/CPackConfig.cmake -B build/packages
#     cudalab            (runtime)   what a student's machine needs: CLI, runners, simulator, exercises, docs
#     cudalab-solutions  (solutions) the reference solutions: install it where solutions may be seen
#     cudalab-grading    (grading)   the instructor's grader; depends on both
# Depends are Debian 12 package names: those of the shared libraries the programs link (`ldd
# build/default/bin/cudalab`, the runners, libcudalab_sim.so, cudalab-grading) and the host compiler
# the simulator compiles kernel.cu with. tests/install checks every linked library against them.
# dpkg-shlibdeps is not used: the GPU runner (built where nvcc was found) links the CUDA runtime of
# that toolkit, which no Debian package owns; the toolkit is a Suggests, and the GPU backend works
# where the same toolkit is installed.
set(CUDALAB_PACKAGE_CONTACT "cudalab maintainers <cudalab@localhost>" CACHE STRING
    "Maintainer of the .deb packages (Name <email>): set it to the course's contact")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cudalab)
set(CPACK_PACKAGE_VENDOR cudalab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${CUDALAB_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Release binaries without their debug sections: a quarter of the size, and quicker to pack.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # cudalab_0.1.0_amd64.deb, cudalab-solutions_0.1.0_all.deb
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
set(CPACK_DEBIAN_PACKAGE_SECTION education)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)  # cudalab-grading: cudalab (= version), …

# Without dpkg, CPack would call every machine i386.
find_program(CUDALAB_DPKG dpkg)
mark_as_advanced(CUDALAB_DPKG)
if(CUDALAB_DPKG)
  execute_process(COMMAND ${CUDALAB_DPKG} --print-architecture OUTPUT_VARIABLE CUDALAB_DEB_ARCH
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$")
  set(CUDALAB_DEB_ARCH amd64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CUDALAB_DEB_ARCH arm64)
else()
  set(CUDALAB_DEB_ARCH ${CMAKE_SYSTEM_PROCESSOR})
endif()
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${CUDALAB_DEB_ARCH})

# runtime: cudalab, the runners and libcudalab_sim.so; the simulator runs the C++ compiler.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME cudalab)
string(CONCAT CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS
       "libc6, libstdc++6, libgcc-s1, libgomp1, libfmt9, libboost-context1.74.0, libnettle8, "
       "libopenblas0-pthread | libopenblas0-openmp | libopenblas0-serial, g++ | clang")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "nvidia-cuda-toolkit")
set(CPACK_COMPONENTS_ALL runtime)

if(EXISTS ${PROJECT_SOURCE_DIR}/solutions)
  list(APPEND CPACK_COMPONENTS_ALL solutions)
  set(CPACK_DEBIAN_SOLUTIONS_PACKAGE_NAME cudalab-solutions)
  set(CPACK_DEBIAN_SOLUTIONS_PACKAGE_ARCHITECTURE all)  # source files only
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "${CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS}, cudalab-solutions")
endif()

if(TARGET cudalab-grading)
  list(APPEND CPACK_COMPONENTS_ALL grading)
  set(CPACK_DEBIAN_GRADING_PACKAGE_NAME cudalab-grading)
  set(CPACK_DEBIAN_GRADING_PACKAGE_DEPENDS "libtomlplusplus3, libsqlite3-0, libarchive13")
endif()

include(CPack)

cpack_add_component(runtime DISPLAY_NAME "cudalab"
                    DESCRIPTION "Learn CUDA by doing: the cudalab program, its runners, the CPU simulator, the exercises and docs")
if("solutions" IN_LIST CPACK_COMPONENTS_ALL)
  cpack_add_component(solutions DISPLAY_NAME "cudalab reference solutions" DEPENDS runtime
                      DESCRIPTION "Reference solutions and speed-ladder steps of the cudalab exercises (not for students)")
endif()
if("grading" IN_LIST CPACK_COMPONENTS_ALL)
  set(grading_needs runtime)
  if("solutions" IN_LIST CPACK_COMPONENTS_ALL)
    list(APPEND grading_needs solutions)  # the reference times come from the solutions
  endif()
  cpack_add_component(grading DISPLAY_NAME "cudalab grading" DEPENDS ${grading_needs}
                      DESCRIPTION "Grading a class with cudalab: cudalab grade, report, merge (for instructors)")
endif()
