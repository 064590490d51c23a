# Real executor and frontend tests (included from tests/engine/CMakeLists.txt).
opsim_add_test(exec_test
  SOURCES exec_real_backend_test.cpp exec_disk_file_test.cpp exec_io_buffer_test.cpp
    exec_operand_pair_test.cpp
    frontend_context_test.cpp
    host_buffer_pool_test.cpp
  LIBS opsim_frontend)
opsim_add_test(exec_experiments_test SERIAL
  SOURCES exec_experiments_test.cpp
  LIBS opsim_book_experiments opsim_topologies)
opsim_add_test(exec_gpu_test SOURCES exec_gpu_test.cpp LIBS opsim_frontend)
if(TARGET opsim_cuda)
  target_compile_definitions(exec_gpu_test PRIVATE OPSIM_CUDA_PLUGIN="$<TARGET_FILE:opsim_cuda>")
  target_link_libraries(exec_gpu_test PRIVATE ${CMAKE_DL_LIBS})
endif()
