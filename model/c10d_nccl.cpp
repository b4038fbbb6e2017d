// The NCCL process group: compiled only where LibTorch has CUDA and NCCL's
// header is found (CMake tries to compile this file first and leaves NCCL out,
// saying so, when it does not compile against the LibTorch at hand).
#include <c10/cuda/CUDAFunctions.h>
#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include "model/c10d_collectives.h"

namespace clgen::model {

Expected<std::unique_ptr<Collectives>> make_nccl_collectives(c10::intrusive_ptr<c10d::Store> store,
                                                             const DistributedEnv& env,
                                                             std::chrono::milliseconds timeout) {
  std::unique_ptr<Collectives> result;
  RETURN_IF_ERROR(c10d_call("nccl", fmt::format("process group of {} ranks", env.world_size), [&] {
    int devices = int(c10::cuda::device_count());
    if (devices < 1) throw std::runtime_error("no CUDA device");
    // Communicators are made for the current device on first use.
    c10::cuda::set_device(c10::DeviceIndex(env.local_rank % devices));
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    auto group = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, env.rank, env.world_size, options);
    result = std::make_unique<C10dCollectives<c10d::ProcessGroupNCCL>>(store, group, env.rank,
                                                                       env.world_size, "nccl");
  }));
  return result;
}

}  // namespace clgen::model
