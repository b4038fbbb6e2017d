// Kernel files on disk for the include and -I/-D tests of `clgen preprocess`
// and `clgen features` (both read files through corpus/preprocess/local_source.h).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace clgen::testing {

// DIR/k.cl includes "beside.h" (beside it: SCALE(x) is x * FACTOR) and
// <common.h> (in DIR/inc: FACTOR is 2.0f), and has
// `if (i < EXTRA) a[0] = 1.0f;` under #ifdef EXTRA:
//   int i = get_global_id(0);
//   a[i] = SCALE(a[i]);
// Returns the path of k.cl.
inline std::string write_include_example(const std::string& dir) {
  std::filesystem::create_directories(dir + "/inc");
  std::ofstream(dir + "/beside.h") << "#define SCALE(x) ((x) * FACTOR)\n";
  std::ofstream(dir + "/inc/common.h") << "#define FACTOR 2.0f\n";
  std::ofstream(dir + "/k.cl") << "#include \"beside.h\"\n"
                                  "#include <common.h>\n"
                                  "__kernel void k(__global float* a) {\n"
                                  "  int i = get_global_id(0);\n"
                                  "  a[i] = SCALE(a[i]);\n"
                                  "#ifdef EXTRA\n"
                                  "  if (i < EXTRA) a[0] = 1.0f;\n"
                                  "#endif\n"
                                  "}\n";
  return dir + "/k.cl";
}

// DIR/sub/up.cl includes "../secret.h"; DIR/sub/link.cl includes "link.h",
// a symlink to DIR/secret.h. Both kernels use SECRET, which only secret.h
// defines. Returns the two files' paths.
inline std::vector<std::string> write_outside_roots_example(const std::string& dir) {
  std::filesystem::create_directories(dir + "/sub");
  std::ofstream(dir + "/secret.h") << "#define SECRET 1\n";
  std::filesystem::create_symlink(dir + "/secret.h", dir + "/sub/link.h");
  const std::string kernel = "__kernel void k(__global int* a) { a[get_global_id(0)] = SECRET; }\n";
  std::ofstream(dir + "/sub/up.cl") << "#include \"../secret.h\"\n" << kernel;
  std::ofstream(dir + "/sub/link.cl") << "#include \"link.h\"\n" << kernel;
  return {dir + "/sub/up.cl", dir + "/sub/link.cl"};
}

}  // namespace clgen::testing
