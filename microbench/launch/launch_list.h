// Every way the launch study launches its kernels, one line each, in run order (the registry;
// README.md says how to add one). PK_LAUNCH_VARIANT(NAME, PDL, GRAPH, SUMMARY): launch.cu launches
// each from its two flags; the plain C++ side (launch_problem.cpp) reads the rest.
PK_LAUNCH_VARIANT(stream, false, false,
                  "the kernels launched back to back on one stream, one cudaLaunchKernel each")
PK_LAUNCH_VARIANT(pdl, true, false,
                  "the same launches with programmatic dependent launch: a kernel's blocks start while the one ahead ends")
PK_LAUNCH_VARIANT(graph, false, true,
                  "the kernels captured once into a CUDA graph, one cudaGraphLaunch per operation")
PK_LAUNCH_VARIANT(graph_pdl, true, true,
                  "the programmatic-dependent launches captured into a CUDA graph (programmatic edges), one cudaGraphLaunch")
