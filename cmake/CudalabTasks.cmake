# cudalab_task_library(<target> <folder>): the trusted side of every exercise under <folder>, one
# task.cpp per NN_name/ subfolder, found by a glob. Each task.cpp registers itself
# (CUDALAB_REGISTER_TASK), so <target> is linked whole (nothing refers to a task by name):
# consumers link the INTERFACE target <target>, which wraps the archive <target>_objects.
#
# The task files hold the CPU baselines (Task::cpu_solve) that GPU speedups are quoted against:
# they are compiled with -O3 in every build type, so that a Debug build does not flatter the GPU.
# No -march: the binaries travel to the GPU machine, so the loops target the baseline ISA (SSE2 on
# x86-64); the matmul baseline is OpenBLAS, which picks its kernels for the CPU at run time.
function(cudalab_task_library target folder)
  file(GLOB task_sources CONFIGURE_DEPENDS ${folder}/*/task.cpp)
  if(NOT task_sources)
    message(FATAL_ERROR "cudalab: no exercise in ${folder} (expected ${folder}/NN_name/task.cpp)")
  endif()
  add_library(${target}_objects STATIC ${task_sources})
  target_link_libraries(${target}_objects PUBLIC cudalab_contract)
  target_include_directories(${target}_objects PRIVATE ${PROJECT_SOURCE_DIR}/exercises)
  target_compile_features(${target}_objects PUBLIC cxx_std_20)
  set_target_properties(${target}_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set_source_files_properties(${task_sources} PROPERTIES COMPILE_OPTIONS
                              "$<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-O3>")
  # OpenBLAS (Debian: libopenblas-dev) for the matmul baseline; its pkg-config file points at the
  # variant the alternatives system selected.
  target_link_libraries(${target}_objects PRIVATE PkgConfig::OPENBLAS)
  # The CPU references (matmul above all) and baselines run on every core; without OpenMP they
  # still work, on one core.
  if(OpenMP_CXX_FOUND)
    target_link_libraries(${target}_objects PUBLIC OpenMP::OpenMP_CXX)
  else()
    target_compile_options(${target}_objects PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-Wno-unknown-pragmas>)
  endif()
  add_library(${target} INTERFACE)
  target_link_libraries(${target} INTERFACE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${target}_objects>")
endfunction()
