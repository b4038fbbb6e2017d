// OpenCL header set-up shared by the driver's sources: one target version,
// and readable names for error codes.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

namespace clgen::driver {

// "CL_OUT_OF_RESOURCES (-5)"; unknown codes print as "OpenCL error -N".
std::string cl_error_name(cl_int code);

}  // namespace clgen::driver
