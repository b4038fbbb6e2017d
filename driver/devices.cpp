// OpenCL device discovery through the ICD loader.
#include "driver/devices.h"

#include "driver/opencl.h"

namespace clgen::driver {

namespace {

Expected<std::string> platform_string(cl_platform_id p, cl_platform_info what) {
  size_t size = 0;
  cl_int err = clGetPlatformInfo(p, what, 0, nullptr, &size);
  if (err != CL_SUCCESS) return unavailable("clGetPlatformInfo: " + cl_error_name(err));
  std::string s(size, '\0');
  err = clGetPlatformInfo(p, what, size, s.data(), nullptr);
  if (err != CL_SUCCESS) return unavailable("clGetPlatformInfo: " + cl_error_name(err));
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

Expected<std::string> device_string(cl_device_id d, cl_device_info what) {
  size_t size = 0;
  cl_int err = clGetDeviceInfo(d, what, 0, nullptr, &size);
  if (err != CL_SUCCESS) return unavailable("clGetDeviceInfo: " + cl_error_name(err));
  std::string s(size, '\0');
  err = clGetDeviceInfo(d, what, size, s.data(), nullptr);
  if (err != CL_SUCCESS) return unavailable("clGetDeviceInfo: " + cl_error_name(err));
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <typename T>
Expected<T> device_value(cl_device_id d, cl_device_info what) {
  T v{};
  cl_int err = clGetDeviceInfo(d, what, sizeof v, &v, nullptr);
  if (err != CL_SUCCESS) return unavailable("clGetDeviceInfo: " + cl_error_name(err));
  return v;
}

const char* type_name(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "GPU";
  if (t & CL_DEVICE_TYPE_CPU) return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
  return "OTHER";
}

Status fill_device(cl_device_id d, DeviceInfo& info) {
  ASSIGN_OR_RETURN(info.name, device_string(d, CL_DEVICE_NAME));
  ASSIGN_OR_RETURN(info.vendor, device_string(d, CL_DEVICE_VENDOR));
  ASSIGN_OR_RETURN(info.version, device_string(d, CL_DEVICE_VERSION));
  ASSIGN_OR_RETURN(info.driver_version, device_string(d, CL_DRIVER_VERSION));
  ASSIGN_OR_RETURN(info.opencl_c_version, device_string(d, CL_DEVICE_OPENCL_C_VERSION));
  ASSIGN_OR_RETURN(cl_device_type type, device_value<cl_device_type>(d, CL_DEVICE_TYPE));
  info.type = type_name(type);
  ASSIGN_OR_RETURN(info.compute_units, device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS));
  ASSIGN_OR_RETURN(info.max_clock_mhz, device_value<cl_uint>(d, CL_DEVICE_MAX_CLOCK_FREQUENCY));
  ASSIGN_OR_RETURN(info.max_work_group_size,
                   device_value<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  ASSIGN_OR_RETURN(cl_uint dims, device_value<cl_uint>(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS));
  std::vector<size_t> sizes(dims);
  cl_int err = clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(size_t) * dims,
                               sizes.data(), nullptr);
  if (err != CL_SUCCESS) return unavailable("CL_DEVICE_MAX_WORK_ITEM_SIZES: " + cl_error_name(err));
  info.max_work_item_sizes.assign(sizes.begin(), sizes.end());
  ASSIGN_OR_RETURN(info.local_mem_size, device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE));
  ASSIGN_OR_RETURN(info.global_mem_size, device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE));
  ASSIGN_OR_RETURN(info.max_mem_alloc_size,
                   device_value<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  ASSIGN_OR_RETURN(cl_bool avail, device_value<cl_bool>(d, CL_DEVICE_AVAILABLE));
  info.available = avail == CL_TRUE;
  return ok_status();
}

}  // namespace

Expected<std::vector<DeviceInfo>> list_devices() {
  std::vector<DeviceInfo> out;
  cl_uint nplatforms = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &nplatforms);
  if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || nplatforms == 0) return out;
  if (err != CL_SUCCESS) return unavailable("clGetPlatformIDs: " + cl_error_name(err));
  std::vector<cl_platform_id> platforms(nplatforms);
  err = clGetPlatformIDs(nplatforms, platforms.data(), nullptr);
  if (err != CL_SUCCESS) return unavailable("clGetPlatformIDs: " + cl_error_name(err));

  for (cl_uint pi = 0; pi < nplatforms; ++pi) {
    cl_platform_id p = platforms[pi];
    std::string where = "platform " + std::to_string(pi);
    ASSIGN_OR_RETURN(std::string pname, platform_string(p, CL_PLATFORM_NAME));
    ASSIGN_OR_RETURN(std::string pvendor, platform_string(p, CL_PLATFORM_VENDOR));
    ASSIGN_OR_RETURN(std::string pversion, platform_string(p, CL_PLATFORM_VERSION));
    cl_uint ndevices = 0;
    err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &ndevices);
    if (err == CL_DEVICE_NOT_FOUND || ndevices == 0) continue;
    if (err != CL_SUCCESS)
      return unavailable(where + " (" + pname + "): clGetDeviceIDs: " + cl_error_name(err));
    std::vector<cl_device_id> devices(ndevices);
    err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, ndevices, devices.data(), nullptr);
    if (err != CL_SUCCESS)
      return unavailable(where + " (" + pname + "): clGetDeviceIDs: " + cl_error_name(err));
    for (cl_uint di = 0; di < ndevices; ++di) {
      DeviceInfo info;
      info.platform_index = static_cast<int>(pi);
      info.device_index = static_cast<int>(di);
      info.platform_name = pname;
      info.platform_vendor = pvendor;
      info.platform_version = pversion;
      RETURN_IF_ERROR_CTX(fill_device(devices[di], info),
                          where + " (" + pname + ") device " + std::to_string(di));
      out.push_back(std::move(info));
    }
  }
  return out;
}

std::string icd_loader_version() {
  // ocl-icd's loader answers clGetICDLoaderInfoOCLICD (cl_icdl extension);
  // other loaders do not, and then we say so.
  using GetInfoFn = cl_int (*)(cl_uint, size_t, void*, size_t*);
  auto fn = reinterpret_cast<GetInfoFn>(
      clGetExtensionFunctionAddress("clGetICDLoaderInfoOCLICD"));
  if (!fn) return "unknown (the ICD loader does not implement cl_icdl)";
  auto query = [&](cl_uint what) {
    char buf[256] = {0};
    if (fn(what, sizeof buf - 1, buf, nullptr) != CL_SUCCESS) return std::string("?");
    return std::string(buf);
  };
  constexpr cl_uint kIcdlOclVersion = 1, kIcdlVersion = 2, kIcdlName = 3;
  return query(kIcdlName) + " " + query(kIcdlVersion) + " (" + query(kIcdlOclVersion) + ")";
}

}  // namespace clgen::driver
