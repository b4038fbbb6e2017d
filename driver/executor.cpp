// OpenCL execution for the worker: contexts, program cache, buffers, the
// four-run dynamic check and event-profiled repetitions.
#include "driver/executor.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

#include "driver/execution.h"
#include "driver/opencl.h"
#include "driver/payload.h"
#include "support/sha256.h"

namespace clgen::driver {

namespace {

constexpr const char* kOutputsEqualInputs = "outputs equal inputs";

template <typename T>
T device_info(cl_device_id d, cl_device_info what) {
  T value{};
  clGetDeviceInfo(d, what, sizeof(T), &value, nullptr);
  return value;
}

}  // namespace

struct Executor::Impl {
  std::map<std::pair<int, int>, DeviceContext> devices;
  // (device, source sha256, options) -> built program; cleared when large.
  std::map<std::tuple<cl_device_id, std::string, std::string>, cl_program> programs;
  bool poisoned = false;

  ~Impl() {
    for (auto& [key, p] : programs) clReleaseProgram(p);
    for (auto& [key, d] : devices) {
      clReleaseCommandQueue(d.queue);
      clReleaseContext(d.context);
    }
  }

  Expected<DeviceContext*> device(int platform_index, int device_index) {
    auto key = std::make_pair(platform_index, device_index);
    auto it = devices.find(key);
    if (it != devices.end()) return &it->second;
    std::string where = "device " + std::to_string(platform_index) + "." + std::to_string(device_index);
    cl_uint nplatforms = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &nplatforms);
    if (err != CL_SUCCESS || platform_index < 0 || static_cast<cl_uint>(platform_index) >= nplatforms)
      return not_found(where + ": no such platform");
    std::vector<cl_platform_id> platforms(nplatforms);
    clGetPlatformIDs(nplatforms, platforms.data(), nullptr);
    cl_uint ndevices = 0;
    err = clGetDeviceIDs(platforms[platform_index], CL_DEVICE_TYPE_ALL, 0, nullptr, &ndevices);
    if (err != CL_SUCCESS || device_index < 0 || static_cast<cl_uint>(device_index) >= ndevices)
      return not_found(where + ": no such device");
    std::vector<cl_device_id> ids(ndevices);
    clGetDeviceIDs(platforms[platform_index], CL_DEVICE_TYPE_ALL, ndevices, ids.data(), nullptr);
    DeviceContext dc;
    dc.device = ids[device_index];
    dc.context = clCreateContext(nullptr, 1, &dc.device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) return unavailable(where + ": clCreateContext: " + cl_error_name(err));
    dc.queue = clCreateCommandQueue(dc.context, dc.device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
      clReleaseContext(dc.context);
      return unavailable(where + ": clCreateCommandQueue: " + cl_error_name(err));
    }
    dc.local_mem = device_info<cl_ulong>(dc.device, CL_DEVICE_LOCAL_MEM_SIZE);
    dc.max_work_group = device_info<size_t>(dc.device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    dc.max_alloc = device_info<cl_ulong>(dc.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    dc.global_mem = device_info<cl_ulong>(dc.device, CL_DEVICE_GLOBAL_MEM_SIZE);
    cl_uint dims = device_info<cl_uint>(dc.device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    std::vector<size_t> items(dims);
    clGetDeviceInfo(dc.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(size_t), items.data(), nullptr);
    dc.max_items.assign(items.begin(), items.end());
    return &devices.emplace(key, dc).first->second;
  }

  // The built program, or a Failure with the build log.
  cl_program program(DeviceContext& dc, const std::string& source, const std::string& options, Failure& failure) {
    auto key = std::make_tuple(dc.device, sha256_hex(source), options);
    auto it = programs.find(key);
    if (it != programs.end()) return it->second;
    if (programs.size() >= 64) {
      for (auto& [k, p] : programs) clReleaseProgram(p);
      programs.clear();
    }
    const char* text = source.c_str();
    size_t length = source.size();
    cl_int err;
    cl_program prog = clCreateProgramWithSource(dc.context, 1, &text, &length, &err);
    if (err != CL_SUCCESS) {
      failure = {Outcome::kCompileError, "clCreateProgramWithSource: " + cl_error_name(err)};
      return nullptr;
    }
    err = clBuildProgram(prog, 1, &dc.device, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      size_t log_size = 0;
      clGetProgramBuildInfo(prog, dc.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &log_size);
      std::string log(log_size, '\0');
      clGetProgramBuildInfo(prog, dc.device, CL_PROGRAM_BUILD_LOG, log_size, log.data(), nullptr);
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
      if (log.size() > 2000) log.resize(2000);
      clReleaseProgram(prog);
      // Any failed build means the kernel does not compile for this device.
      // Errors other than a build failure are the compiler itself failing
      // (NVIDIA's returns -9999 on kernels it cannot handle, e.g. some printf
      // uses): still a compile error, but the context may be left broken, so
      // this worker ends after answering and the next source gets a fresh one.
      if (err != CL_BUILD_PROGRAM_FAILURE && err != CL_INVALID_BUILD_OPTIONS) poisoned = true;
      failure = {Outcome::kCompileError, "clBuildProgram: " + cl_error_name(err) + (log.empty() ? "" : ": " + log)};
      return nullptr;
    }
    programs.emplace(key, prog);
    return prog;
  }

  // The job's kernel, built; nullptr with `failure` set when it does not build.
  cl_kernel kernel(DeviceContext& dc, const DriveJob& job, Failure& failure) {
    std::string options = job.build_options + (job.args_from_device ? " -cl-kernel-arg-info" : "");
    cl_program prog = program(dc, job.source, options, failure);
    if (!prog) return nullptr;
    cl_int err;
    cl_kernel kernel = clCreateKernel(prog, job.kernel_name.c_str(), &err);
    if (err != CL_SUCCESS) {
      failure = {Outcome::kCompileError, "clCreateKernel(" + job.kernel_name + "): " + cl_error_name(err)};
      return nullptr;
    }
    return kernel;
  }
};

Executor::Executor() : impl_(std::make_unique<Impl>()) {}
Executor::~Executor() = default;
bool Executor::poisoned() const { return impl_->poisoned; }

namespace {

// Describes a built kernel's arguments from -cl-kernel-arg-info.
std::vector<ArgInfo> device_arg_info(cl_kernel kernel) {
  cl_uint nargs = 0;
  clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr);
  std::vector<ArgInfo> args(nargs);
  for (cl_uint i = 0; i < nargs; ++i) {
    ArgInfo& a = args[i];
    auto text = [&](cl_kernel_arg_info what) {
      size_t n = 0;
      clGetKernelArgInfo(kernel, i, what, 0, nullptr, &n);
      std::string s(n, '\0');
      clGetKernelArgInfo(kernel, i, what, n, s.data(), nullptr);
      while (!s.empty() && s.back() == '\0') s.pop_back();
      return s;
    };
    a.name = text(CL_KERNEL_ARG_NAME);
    a.type = text(CL_KERNEL_ARG_TYPE_NAME);
    cl_kernel_arg_address_qualifier aq = CL_KERNEL_ARG_ADDRESS_PRIVATE;
    clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, nullptr);
    cl_kernel_arg_type_qualifier tq = 0;
    clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, nullptr);
    std::string base = a.type;
    while (!base.empty() && (base.back() == '*' || base.back() == ' ')) {
      if (base.back() == '*') a.is_pointer = true;
      base.pop_back();
    }
    a.address_space = aq == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? AddressSpace::kGlobal
                      : aq == CL_KERNEL_ARG_ADDRESS_CONSTANT ? AddressSpace::kConstant
                      : aq == CL_KERNEL_ARG_ADDRESS_LOCAL    ? AddressSpace::kLocal
                                                             : AddressSpace::kPrivate;
    a.is_const = (tq & CL_KERNEL_ARG_TYPE_CONST) || a.address_space == AddressSpace::kConstant;
    if (base.find("image") != std::string::npos) {
      a.supported = false;
      a.unsupported_reason = "image";
    } else if (base == "sampler_t") {
      a.supported = false;
      a.unsupported_reason = "sampler";
    } else if (base.find("pipe") != std::string::npos) {
      a.supported = false;
      a.unsupported_reason = "pipe";
    } else if (!parse_element_type(base, a.kind, a.element_size, a.vector_width)) {
      a.supported = false;
      a.unsupported_reason =
          a.is_pointer ? "struct or unknown pointee type '" + base + "'" : "unsupported type '" + base + "'";
    }
    if (a.is_pointer && a.address_space != AddressSpace::kLocal) {
      a.reads = true;
      a.writes = !a.is_const;
    }
  }
  return args;
}

uint64_t product(const std::vector<uint64_t>& v) {
  uint64_t p = 1;
  for (uint64_t x : v) p *= x;
  return p;
}

Status check_dimensions(const DriveJob& job) {
  if (job.global_size.empty() || job.global_size.size() > 3)
    return invalid_argument("global size needs 1 to 3 dimensions");
  if (!job.local_size.empty() && job.local_size.size() != job.global_size.size())
    return invalid_argument("local size " + format_size(job.local_size) +
                            " has a different number of dimensions than global size " + format_size(job.global_size));
  return ok_status();
}

// The arguments as the device counts them, all of them supported.
std::optional<Failure> check_arguments(cl_kernel kernel, const std::vector<ArgInfo>& args) {
  cl_uint nargs = 0;
  clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr);
  if (nargs != args.size())
    return Failure{Outcome::kUnsupportedArguments, "the device reports " + std::to_string(nargs) +
                                                       " arguments, the analysis " + std::to_string(args.size())};
  for (const auto& a : args)
    if (!a.supported)
      return Failure{Outcome::kUnsupportedArguments,
                     "argument '" + a.name + "' (" + a.type + "): " + a.unsupported_reason};
  return std::nullopt;
}

// The kernel's work-group size and local and private memory, into `result`.
void read_kernel_limits(cl_kernel kernel, const DeviceContext& dc, DriveResult& result) {
  size_t wg = 0;
  cl_ulong local_mem = 0, private_mem = 0;
  clGetKernelWorkGroupInfo(kernel, dc.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr);
  clGetKernelWorkGroupInfo(kernel, dc.device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, nullptr);
  clGetKernelWorkGroupInfo(kernel, dc.device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_mem, &private_mem, nullptr);
  result.kernel_work_group_size = wg;
  result.kernel_local_mem = local_mem;
  result.kernel_private_mem = private_mem;
}

// A given local size against the device's and the kernel's (`wg`) limits.
std::optional<Failure> check_local_size(const DriveJob& job, const DeviceContext& dc, uint64_t wg) {
  const auto& l = job.local_size;
  for (size_t d = 0; d < l.size(); ++d) {
    if (d < dc.max_items.size() && l[d] > dc.max_items[d])
      return Failure{Outcome::kInvalidLaunchParameters,
                     "local size " + format_size(l) + " exceeds the device's maximum work-item size " +
                         std::to_string(dc.max_items[d]) + " in dimension " + std::to_string(d)};
    if (job.global_size[d] % l[d] != 0)
      return Failure{Outcome::kInvalidLaunchParameters,
                     "local size " + format_size(l) + " does not divide global size " + format_size(job.global_size)};
  }
  if (product(l) > dc.max_work_group)
    return Failure{Outcome::kInvalidLaunchParameters, "local size " + format_size(l) +
                                                          " exceeds the device's maximum work-group size " +
                                                          std::to_string(dc.max_work_group)};
  if (product(l) > wg)
    return Failure{
        Outcome::kInvalidLaunchParameters,
        "local size " + format_size(l) + " exceeds the kernel's work-group size limit " + std::to_string(wg)};
  return std::nullopt;
}

// The local size into `result`: given (checked against device and kernel
// limits), the kernel's reqd_work_group_size, or automatic.
std::optional<Failure> choose_local_size(const DriveJob& job, const DeviceContext& dc, cl_kernel kernel,
                                         DriveResult& result) {
  const uint64_t wg = result.kernel_work_group_size;
  const uint64_t limit = std::min<uint64_t>(dc.max_work_group, wg ? wg : dc.max_work_group);
  size_t required[3] = {0, 0, 0};  // reqd_work_group_size, all zero when absent
  clGetKernelWorkGroupInfo(kernel, dc.device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof required, required, nullptr);
  if (job.local_size.empty() && required[0] != 0) {
    result.local_size.assign(required, required + job.global_size.size());
    for (size_t d = 0; d < job.global_size.size(); ++d)
      if (job.global_size[d] % result.local_size[d] != 0)
        return Failure{Outcome::kInvalidLaunchParameters,
                       "the kernel requires local size " + format_size(result.local_size) +
                           ", which does not divide global size " + format_size(job.global_size)};
  } else if (job.local_size.empty()) {
    result.local_size = automatic_local_size(job.global_size, limit, dc.max_items);
  } else {
    result.local_size = job.local_size;
    return check_local_size(job, dc, wg);
  }
  return std::nullopt;
}

// Buffers above the device's limits are refused before any host memory is
// spent on payloads.
std::optional<Failure> check_buffer_limits(const DriveJob& job, const std::vector<ArgInfo>& args,
                                           const DeviceContext& dc) {
  uint64_t total_bytes = 0;
  for (const auto& a : args) {
    if (!a.is_pointer || a.address_space == AddressSpace::kLocal) continue;
    uint64_t bytes = product(job.global_size) * static_cast<uint64_t>(a.element_stride());
    total_bytes += bytes;
    if (bytes > dc.max_alloc)
      return Failure{Outcome::kOutOfResources, "argument '" + a.name + "' needs " + std::to_string(bytes) +
                                                   " bytes, above the device's maximum allocation of " +
                                                   std::to_string(dc.max_alloc)};
  }
  if (total_bytes > dc.global_mem)
    return Failure{Outcome::kOutOfResources,
                   "buffers need " + std::to_string(total_bytes) + " bytes, above the device's global memory"};
  return std::nullopt;
}

// One execution of the kernel with a payload (execute_kernel); false with the
// failure set where it ends.
using RunFunction = std::function<bool(const std::vector<ArgPayload>&, ExecOutput&)>;

// The payloads, the dynamic check and the timed runs of one built kernel.
// After a failed run, `failure` (which the run function sets) says why.
class KernelRuns {
 public:
  KernelRuns(const DriveJob& job, const std::vector<ArgInfo>& args, PayloadOptions popts, RunFunction run,
             const Failure& failure, DriveResult& result)
      : job_(job), args_(args), popts_(popts), run_(std::move(run)), failure_(failure), result_(result) {
    integer_scalars_ = has_integer_scalars(args);
  }

  bool integer_scalars() const { return integer_scalars_; }

  // Payloads A (seed) and B (seed + 1) with integer scalars `scalar`.
  Status make_payloads(uint64_t scalar) {
    popts_.scalar_size = scalar;
    popts_.seed = job_.seed;
    ASSIGN_OR_RETURN(payload_a_, clgen::driver::make_payloads(args_, popts_));
    popts_.seed = job_.seed + 1;
    ASSIGN_OR_RETURN(payload_b_, clgen::driver::make_payloads(args_, popts_));
    return ok_status();
  }

  // The dynamic check, again with integer scalars 1 when the outputs equal
  // the inputs with the global size (job.scalar_fallback): nullopt when the
  // kernel passes, else why not.
  std::optional<Failure> check() {
    auto verdict = check_once();
    if (!verdict) return failure_;
    if (verdict->outcome == Outcome::kNoOutput && verdict->message == kOutputsEqualInputs && job_.scalar_fallback &&
        integer_scalars_ && job_.global_size[0] != 1 && !job_.integer_scalars_one) {
      if (Status st = make_payloads(1); !st.ok()) return Failure{Outcome::kOutOfResources, st.message()};
      result_.scalar_value = 1;
      verdict = check_once();
      if (!verdict) return failure_;
      if (verdict->outcome != Outcome::kPass)
        verdict->message += " (integer scalars 1, after outputs equal inputs with the global size)";
    }
    if (verdict->outcome != Outcome::kPass) return verdict;
    return std::nullopt;
  }

  // The warm-up and the profiled runs, with payload A.
  std::optional<Failure> time() {
    for (int r = 0; r < job_.warmup + job_.runs; ++r) {
      ExecOutput out;
      if (!run_(payload_a_, out)) return failure_;
      result_.transferred_bytes = out.bytes;
      if (r < job_.warmup) continue;
      result_.transfer_ns.push_back(out.transfer_ns);
      result_.kernel_ns.push_back(out.kernel_ns);
    }
    return std::nullopt;
  }

 private:
  // The 4-run dynamic check (A1, B1, A2, B2): kPass, or the outcome and
  // message of the failed check; nullopt when a run itself failed.
  std::optional<Failure> check_once() {
    ExecOutput a1, b1, a2, b2;
    if (!run_(payload_a_, a1) || !run_(payload_b_, b1) || !run_(payload_a_, a2) || !run_(payload_b_, b2))
      return std::nullopt;
    result_.transferred_bytes = a1.bytes;
    bool any_output = false;
    bool a_same_as_input = true, b_same_as_input = true;
    bool deterministic = true, a_equals_b = true;
    for (size_t i = 0; i < args_.size(); ++i) {
      if (a1.outputs[i].empty()) continue;
      any_output = true;
      const ArgInfo& arg = args_[i];
      a_same_as_input &= buffers_equal(arg, a1.outputs[i], payload_a_[i].data);
      b_same_as_input &= buffers_equal(arg, b1.outputs[i], payload_b_[i].data);
      deterministic &=
          buffers_equal(arg, a1.outputs[i], a2.outputs[i]) && buffers_equal(arg, b1.outputs[i], b2.outputs[i]);
      a_equals_b &= buffers_equal(arg, a1.outputs[i], b1.outputs[i]);
    }
    if (!any_output) return Failure{Outcome::kNoOutput, "the kernel writes no argument"};
    if (a_same_as_input && b_same_as_input) return Failure{Outcome::kNoOutput, kOutputsEqualInputs};
    if (!deterministic) return Failure{Outcome::kNondeterministic, "the same payload gave different outputs"};
    if (a_equals_b) return Failure{Outcome::kInputInsensitive, "payloads A and B gave the same outputs"};
    return Failure{Outcome::kPass, ""};
  }

  const DriveJob& job_;
  const std::vector<ArgInfo>& args_;
  PayloadOptions popts_;
  RunFunction run_;
  const Failure& failure_;
  DriveResult& result_;
  bool integer_scalars_ = false;
  std::vector<ArgPayload> payload_a_, payload_b_;
};

}  // namespace

Expected<std::vector<KernelSignature>> Executor::list_kernels(const std::string& source,
                                                              const std::string& build_options, int platform_index,
                                                              int device_index) {
  ASSIGN_OR_RETURN(DeviceContext * dc, impl_->device(platform_index, device_index));
  Failure failure;
  cl_program prog = impl_->program(*dc, source, build_options + " -cl-kernel-arg-info", failure);
  if (!prog) return parse_error(failure.message);
  cl_uint n = 0;
  clCreateKernelsInProgram(prog, 0, nullptr, &n);
  std::vector<cl_kernel> kernels(n);
  clCreateKernelsInProgram(prog, n, kernels.data(), nullptr);
  std::vector<KernelSignature> out;
  for (cl_kernel k : kernels) {
    KernelSignature sig;
    size_t len = 0;
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &len);
    std::string name(len, '\0');
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, len, name.data(), nullptr);
    while (!name.empty() && name.back() == '\0') name.pop_back();
    sig.name = name;
    sig.args = device_arg_info(k);
    out.push_back(std::move(sig));
    clReleaseKernel(k);
  }
  return out;
}

Status Executor::prepare(int platform_index, int device_index) {
  ASSIGN_OR_RETURN(DeviceContext * dc, impl_->device(platform_index, device_index));
  Failure failure;
  if (!impl_->program(*dc, "kernel void clgen_prepare(global int* a) { a[0] = 1; }", "", failure))
    return unavailable("the device compiler fails on a trivial kernel: " + failure.message);
  return ok_status();
}

Expected<DriveResult> Executor::drive(const DriveJob& job) {
  RETURN_IF_ERROR(check_dimensions(job));
  ASSIGN_OR_RETURN(DeviceContext * dc, impl_->device(job.platform_index, job.device_index));
  DriveResult result;
  auto finish = [&](Failure f) {
    result.outcome = f.outcome;
    result.message = std::move(f.message);
    return result;
  };

  Failure failure;
  cl_kernel kernel = impl_->kernel(*dc, job, failure);
  if (!kernel) return finish(failure);
  struct KernelGuard {
    cl_kernel k;
    ~KernelGuard() { clReleaseKernel(k); }
  } guard{kernel};

  const std::vector<ArgInfo> args = job.args_from_device ? device_arg_info(kernel) : job.args;
  if (auto f = check_arguments(kernel, args)) return finish(*f);
  read_kernel_limits(kernel, *dc, result);
  if (auto f = choose_local_size(job, *dc, kernel, result)) return finish(*f);
  if (auto f = check_buffer_limits(job, args, *dc)) return finish(*f);

  PayloadOptions popts;
  popts.global_items = product(job.global_size);
  const uint64_t scalar = job.integer_scalars_one ? 1 : job.global_size[0];
  popts.scalar_size = scalar;
  popts.local_mem_free = dc->local_mem > result.kernel_local_mem ? dc->local_mem - result.kernel_local_mem : 0;
  const std::vector<size_t> global(job.global_size.begin(), job.global_size.end());
  const std::vector<size_t> local(result.local_size.begin(), result.local_size.end());
  auto run = [&](const std::vector<ArgPayload>& p, ExecOutput& out) {
    return execute_kernel(*dc, kernel, args, p, global, local, out, failure, impl_->poisoned);
  };
  KernelRuns runs(job, args, popts, run, failure, result);
  if (Status st = runs.make_payloads(scalar); !st.ok()) return finish({Outcome::kOutOfResources, st.message()});
  result.scalar_value = runs.integer_scalars() ? scalar : 0;
  if (job.check)
    if (auto f = runs.check()) return finish(*f);
  if (auto f = runs.time()) return finish(*f);
  return finish({Outcome::kPass, ""});
}

}  // namespace clgen::driver
