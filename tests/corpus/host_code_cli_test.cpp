// `clgen corpus add DIR` on a host file and kernel files in several
// encodings, `corpus preprocess`, then `corpus stats`: the kernel read out of
// the host file is stored with its lines, compiles, and is counted.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/corpus/test_util.h"

namespace clgen::testing {
namespace {

// One row's first column, or "<none>".
std::string query_text(const std::string& db_path, const std::string& sql) {
  auto db = Database::open(db_path);
  EXPECT_TRUE(db.ok());
  auto st = db->prepare(sql);
  EXPECT_TRUE(st.ok()) << sql;
  auto row = st->step();
  return row.ok() && *row ? st->column_text(0) : "<none>";
}

TEST(HostCodeCli, AddReadsKernelsOutOfHostCodeAndStatsCountThem) {
  TempDir tmp;
  const std::string src = tmp / "src", ws = tmp / "ws";
  write_text(src + "/main.cpp",
             "#include <CL/cl.h>\n"
             "static const char* src = \"__kernel void saxpy(float a, __global const float* x,\"\n"
             "  \" __global float* y, int n) { int i = get_global_id(0); if (i < n) y[i] += a * x[i]; }\";\n"
             "const char* msg = \"the __kernel failed to build\";\n");
  // One Latin-1 byte (0xA9, ©) in a comment.
  write_text(src + "/scale.cl",
             "// \xA9 2024 the authors\n"
             "__kernel void scale(__global float* v, float s, int n) {\n"
             "  int i = get_global_id(0);\n  if (i < n) v[i] = v[i] * s + 1.0f;\n}\n");
  // A UTF-8 byte-order mark and CRLF line ends.
  write_text(src + "/clampk.cl",
             "\xEF\xBB\xBF__kernel void clampk(__global int* v, int lo, int hi, int n) {\r\n"
             "  int i = get_global_id(0);\r\n  if (i < n) v[i] = clamp(v[i], lo, hi);\r\n}\r\n");
  // Latin-1 in code: refused, with the byte and its line.
  write_text(src + "/bad.cl", "__kernel void f\xE9(__global int* a) { a[0] = 1; }\n");

  CommandResult add = run_clgen({"--workspace", ws, "corpus", "add", src});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  EXPECT_NE(add.out.find("host code: 1 files read, 1 kernels recovered"), std::string::npos) << add.out;
  const std::string db = ws + "/clgen.db";
  // The host kernel's origin: the host file and lines 2-3 (the two literals).
  EXPECT_EQ(query_text(db,
                       "SELECT path || ':' || line_first || '-' || line_last FROM content_origins "
                       "WHERE line_first IS NOT NULL"),
            "main.cpp:2-3");
  // © stored as UTF-8 (C2 A9).
  EXPECT_EQ(query_text(db,
                       "SELECT instr(c.text, char(169)) > 0 FROM content_files c JOIN content_origins o "
                       "USING (sha256) WHERE o.path = 'scale.cl'"),
            "1");
  EXPECT_EQ(query_text(db, "SELECT reason || ': ' || detail FROM skipped WHERE path = 'bad.cl'"),
            "invalid_utf8: byte 0xE9 outside comments and literals at line 1");

  CommandResult pre = run_clgen({"--workspace", ws, "-q", "corpus", "preprocess", "-j", "2"});
  ASSERT_EQ(pre.exit_code, 0) << pre.err;
  for (const char* path : {"scale.cl", "clampk.cl", "main.cpp"})
    EXPECT_EQ(query_text(db, std::string("SELECT group_concat(p.status || ' ' || COALESCE(p.reason, '')) FROM "
                                         "preprocessed p JOIN content_origins o ON o.sha256 = p.content_sha256 "
                                         "WHERE o.path = '") +
                                 path + "'"),
              "ok ")
        << path;

  CommandResult stats = run_clgen({"--workspace", ws, "corpus", "stats", "--json"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  nlohmann::json s = nlohmann::json::parse(stats.out);
  EXPECT_EQ(s["host_kernels"], 1);
  EXPECT_EQ(s["host_files"], 1);
  EXPECT_EQ(s["accepted_kernels"], 3);       // saxpy, scale, clampk
  EXPECT_EQ(s["accepted_host_kernels"], 1);  // saxpy
  EXPECT_EQ(s["skipped"], nlohmann::json({{"invalid_utf8", 1}}));
  ASSERT_EQ(s["by_source"].size(), 1u);
  EXPECT_EQ(s["by_source"][0]["host_kernels"], 1);
  EXPECT_EQ(s["by_source"][0]["accepted_kernels"], 3);
  EXPECT_GT(s["by_source"][0]["training_chars"].get<int64_t>(), 0);
  EXPECT_EQ(s["by_source"][0]["training_chars"], s["training_chars"]);

  CommandResult text = run_clgen({"--workspace", ws, "corpus", "stats"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("(total)"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace clgen::testing
