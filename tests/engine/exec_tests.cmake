# Real executor and frontend tests (included from tests/engine/CMakeLists.txt).
opsim_add_test(exec_test
  SOURCES exec_cpu_backend_test.cpp frontend_context_test.cpp
  LIBS opsim_frontend)
opsim_add_test(exec_experiments_test SERIAL
  SOURCES exec_experiments_test.cpp
  LIBS opsim_book_experiments opsim_topologies)
if(TARGET opsim_exec_cuda)
  opsim_add_test(exec_cuda_test SOURCES exec_cuda_backend_test.cpp LIBS opsim_exec_cuda)
endif()
