# exec_overhead_bench: our executor against oneTBB flow graph and StarPU 1.3 (both optional).
find_package(TBB QUIET)
pkg_check_modules(STARPU QUIET IMPORTED_TARGET starpu-1.3)
if(TBB_FOUND AND STARPU_FOUND)
  add_executable(exec_overhead_bench exec_overhead_bench.cpp)
  target_link_libraries(exec_overhead_bench PRIVATE opsim_frontend TBB::tbb PkgConfig::STARPU)
else()
  message(STATUS "exec_overhead_bench skipped: needs libtbb-dev and libstarpu-dev")
endif()
