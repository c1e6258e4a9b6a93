from blas_threads import one_blas_thread  # noqa: F401 - an autouse fixture
