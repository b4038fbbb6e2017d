// Include inliner and source trees: resolution, cycles, repeated headers,
// macro includes, and confinement to the repository root.
#include <gtest/gtest.h>

#include <filesystem>

#include "corpus/inliner.h"
#include "corpus/source_tree.h"
#include "tests/corpus/test_util.h"

namespace clgen::corpus {
namespace {

using clgen::testing::TempDir;
using clgen::testing::write_text;

class InlinerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text(root_ / "README", "outside the repository\n");
    write_text(repo() + "/include/common.h", "#define N 4\n");
  }
  std::string repo() const { return root_ / "repo"; }
  void write(const std::string& rel, const std::string& text) { write_text(repo() + "/" + rel, text); }
  InlineResult run(const std::string& path, const InlineOptions& options = {}) {
    auto tree = open_directory_tree(repo());
    EXPECT_TRUE(tree.ok()) << tree.status().message();
    auto text = (*tree)->read(path, 1 << 20);
    EXPECT_TRUE(text.ok()) << text.status().message();
    auto r = inline_includes(**tree, path, *text, options);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return *r;
  }
  TempDir root_;
};

TEST_F(InlinerTest, LeavesFilesWithoutIncludesUnchanged) {
  write("k.cl", "kernel void A() {}");  // no final newline
  InlineResult r = run("k.cl");
  EXPECT_EQ(r.text, "kernel void A() {}");
  EXPECT_EQ(r.inlined, 0);
}

TEST_F(InlinerTest, InlinesNestedIncludesRelativeToTheIncludingFile) {
  write("src/k.cl", "#include \"lib/a.h\"\nkernel void A() {}\n");
  write("src/lib/a.h", "#include \"b.h\"\nint a;\n");
  write("src/lib/b.h", "int b;\n");
  InlineResult r = run("src/k.cl");
  EXPECT_EQ(r.text, "int b;\nint a;\nkernel void A() {}\n");
  EXPECT_EQ(r.inlined, 2);
  EXPECT_EQ(r.unresolved, 0);
}

TEST_F(InlinerTest, DropsTheByteOrderMarkThatStartsAnIncludedFile) {
  write("k.cl", "#include \"a.h\"\nkernel void A() {}\n");
  write("a.h", "\xEF\xBB\xBFint a;\n");
  InlineResult r = run("k.cl");
  EXPECT_EQ(r.text, "int a;\nkernel void A() {}\n");
}

TEST_F(InlinerTest, ListsEachFileItInlinedOnceInTheOrderFirstInlined) {
  // frag.h is inlined twice inside the body, a.h and missing.h are not repeated.
  write("src/k.cl", "#include \"a.h\"\n#include \"missing.h\"\nkernel void A() {\n#include \"frag.h\"\n"
                    "#include \"frag.h\"\n}\n#include \"a.h\"\n");
  write("src/a.h", "#include <common.h>\nint a;\n");
  write("src/frag.h", "a += 1;\n");
  InlineResult r = run("src/k.cl");
  EXPECT_EQ(r.inlined, 4);
  EXPECT_EQ(r.included_paths, (std::vector<std::string>{"src/a.h", "include/common.h", "src/frag.h"}));
}

TEST_F(InlinerTest, SearchesIncludeDirectoriesOfTheRepository) {
  write("kernels/k.cl", "#include <common.h>\nkernel void A() {}\n");
  InlineResult r = run("kernels/k.cl");
  EXPECT_EQ(r.text, "#define N 4\nkernel void A() {}\n");
  EXPECT_EQ(r.inlined, 1);
}

TEST_F(InlinerTest, SearchesTheIncludingFilesParentFoldersNearestFirst) {
  // A build system passes the kernel folder with -I: image/k.cl names a header of cl_kernel/.
  write("lite/cl_kernel/image/k.cl", "#include <cl_common.h>\nkernel void A() {}\n");
  write("lite/cl_kernel/cl_common.h", "#define NEAR 1\n");
  write("lite/cl_common.h", "#define FAR 1\n");
  InlineResult r = run("lite/cl_kernel/image/k.cl");
  EXPECT_EQ(r.text, "#define NEAR 1\nkernel void A() {}\n");
  EXPECT_EQ(r.unresolved, 0);
}

TEST_F(InlinerTest, SearchesNoParentFolderWhenAskedNot) {
  write("lite/cl_kernel/image/k.cl", "#include <cl_common.h>\nkernel void A() {}\n");
  write("lite/cl_kernel/cl_common.h", "#define NEAR 1\n");
  InlineOptions options;
  options.search_parent_dirs = false;
  EXPECT_EQ(run("lite/cl_kernel/image/k.cl", options).unresolved, 1);
}

TEST_F(InlinerTest, KeepsAndCountsIncludesItCannotFind) {
  write("k.cl", "#include \"missing.h\"\n#include <stdio.h>\nkernel void A() {}\n");
  InlineResult r = run("k.cl");
  EXPECT_EQ(r.text, "#include \"missing.h\"\n#include <stdio.h>\nkernel void A() {}\n");
  EXPECT_EQ(r.unresolved, 2);
  EXPECT_EQ(r.unresolved_names, (std::vector<std::string>{"missing.h", "stdio.h"}));
}

TEST_F(InlinerTest, ReadsAMissingSourceAsItsHeader) {
  // The source is absent but its header, which declares what it defines, is there.
  write("OpenCL/k.cl", "#include \"inc_common.cl\"\nkernel void A() {}\n");
  write("OpenCL/inc_common.h", "void helper(void);\n");
  InlineResult r = run("OpenCL/k.cl");
  EXPECT_EQ(r.text, "void helper(void);\nkernel void A() {}\n");
  EXPECT_EQ(r.substituted, 1);
  EXPECT_EQ(r.unresolved, 0);
  EXPECT_EQ(r.included_paths, (std::vector<std::string>{"OpenCL/inc_common.h"}));
}

TEST_F(InlinerTest, KeepsAMissingSourceWhenAskedOrWhenItHasNoHeader) {
  write("k.cl", "#include \"inc_common.cl\"\n#include \"other.cl\"\nkernel void A() {}\n");
  write("inc_common.h", "void helper(void);\n");
  auto tree = open_directory_tree(repo());
  ASSERT_TRUE(tree.ok());
  auto text = (*tree)->read("k.cl", 1 << 20);
  ASSERT_TRUE(text.ok());
  InlineOptions off;
  off.header_for_missing_source = false;
  auto r = inline_includes(**tree, "k.cl", *text, off);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->unresolved, 2);
  EXPECT_EQ(r->substituted, 0);
  InlineResult on = run("k.cl");
  EXPECT_EQ(on.substituted, 1);
  EXPECT_EQ(on.unresolved_names, (std::vector<std::string>{"other.cl"}));
}

TEST_F(InlinerTest, BreaksIncludeCycles) {
  write("k.cl", "#include \"a.h\"\nkernel void A() {}\n");
  write("a.h", "#include \"b.h\"\nint a;\n");
  write("b.h", "#include \"a.h\"\nint b;\n");
  InlineResult r = run("k.cl");
  EXPECT_EQ(r.text, "int b;\nint a;\nkernel void A() {}\n");
  EXPECT_EQ(r.cycles, 1);
}

TEST_F(InlinerTest, InlinesAHeaderOncePerFile) {
  write("k.cl", "#include \"a.h\"\n#include \"b.h\"\n#include \"a.h\"\nkernel void A() {}\n");
  write("a.h", "int a;\n");
  write("b.h", "#include \"a.h\"\nint b;\n");
  InlineResult r = run("k.cl");
  EXPECT_EQ(r.text, "int a;\nint b;\nkernel void A() {}\n");
  EXPECT_EQ(r.repeated, 2);
}

TEST_F(InlinerTest, InlinesAHeaderThatEndsByUndefiningItsParameterAtEveryInclude) {
  // The list expands T and ends by undefining it; each includer defines T
  // its own way first, so a second include must not be dropped.
  write("k.cl",
        "#define T(type, name) typedef type name##_t;\n#include \"list.h\"\n"
        "#define T(type, name) __global type* name;\n#include \"list.h\"\nkernel void A() {}\n");
  write("list.h", "#ifndef T\n#define T(type, name)\n#endif\nT(float, a)\n#undef T\n");
  InlineResult r = run("k.cl");
  EXPECT_EQ(r.text,
            "#define T(type, name) typedef type name##_t;\n#ifndef T\n#define T(type, name)\n#endif\nT(float, a)\n"
            "#undef T\n#define T(type, name) __global type* name;\n#ifndef T\n#define T(type, name)\n#endif\n"
            "T(float, a)\n#undef T\nkernel void A() {}\n");
  EXPECT_EQ(r.repeated, 0);
}

TEST_F(InlinerTest, RefusesIncludesThatEscapeTheRepository) {
  write("k.cl", "#include \"../../etc/passwd\"\n#include \"../README\"\n#include \"/etc/passwd\"\n");
  InlineResult r = run("k.cl");
  EXPECT_EQ(r.text, "#include \"../../etc/passwd\"\n#include \"../README\"\n#include \"/etc/passwd\"\n");
  EXPECT_EQ(r.refused, 3);
  EXPECT_EQ(r.inlined, 0);
  EXPECT_EQ(r.text.find("outside the repository"), std::string::npos);
}

TEST_F(InlinerTest, DoesNotFollowSymlinksOutOfTheRepository) {
  std::filesystem::create_symlink(root_ / "README", repo() + "/evil.h");
  std::filesystem::create_symlink("../README", repo() + "/evil2.h");
  write("k.cl", "#include \"evil.h\"\n#include \"evil2.h\"\nkernel void A() {}\n");
  InlineResult r = run("k.cl");
  EXPECT_EQ(r.inlined, 0);
  EXPECT_EQ(r.unresolved, 2);
  EXPECT_EQ(r.text.find("outside the repository"), std::string::npos);
}

TEST_F(InlinerTest, FollowsSymlinksInsideTheRepository) {
  std::filesystem::create_symlink("include/common.h", repo() + "/alias.h");
  write("k.cl", "#include \"alias.h\"\n");
  InlineResult r = run("k.cl");
  EXPECT_EQ(r.text, "#define N 4\n");
}

TEST_F(InlinerTest, ResolvesHashcatStylePathMacros) {
  write("OpenCL/m0.cl",
        "#ifdef KERNEL_STATIC\n#include M2S(INCLUDE_PATH/inc_types.h)\n#endif\nkernel void A() {}\n");
  write("OpenCL/inc_types.h", "typedef uint u32;\n");
  InlineResult r = run("OpenCL/m0.cl");
  EXPECT_EQ(r.text, "#ifdef KERNEL_STATIC\ntypedef uint u32;\n#endif\nkernel void A() {}\n");
  EXPECT_EQ(r.inlined, 1);
}

TEST_F(InlinerTest, ExpandsIncludeMacrosAndReinlinesFragmentsInsideBodies) {
  write("m.cl",
        "#define COMPARE_M M2S(INCLUDE_PATH/cmp.cl)\n"
        "void f() {\n  #include COMPARE_M\n}\n"
        "void g() {\n  #include COMPARE_M\n}\n");
  write("cmp.cl", "  x++;\n");
  InlineResult r = run("m.cl");
  EXPECT_EQ(r.text,
            "#define COMPARE_M M2S(INCLUDE_PATH/cmp.cl)\nvoid f() {\n  x++;\n}\nvoid g() {\n  x++;\n}\n");
  EXPECT_EQ(r.inlined, 2);
}

TEST_F(InlinerTest, WritesAMissingFragmentInsideABodyAsAStatement) {
  write("k.cl", "#include \"missing.h\"\nkernel void A() {\n  #include \"frag.cl\"\n}\n");
  InlineResult r = run("k.cl");
  EXPECT_EQ(r.text,
            std::string("#include \"missing.h\"\nkernel void A() {\n(void)\"") + kMissingFragment + " frag.cl\";\n}\n");
  EXPECT_EQ(r.unresolved_names, (std::vector<std::string>{"missing.h", "frag.cl"}));
}

TEST_F(InlinerTest, IgnoresIncludesInsideComments) {
  write("k.cl", "/*\n#include \"a.h\"\n*/\n// #include \"a.h\"\nkernel void A() {}\n");
  write("a.h", "int a;\n");
  InlineResult r = run("k.cl");
  EXPECT_EQ(r.inlined, 0);
  EXPECT_EQ(r.text, "/*\n#include \"a.h\"\n*/\n// #include \"a.h\"\nkernel void A() {}\n");
}

TEST_F(InlinerTest, StopsAtTheOutputLimit) {
  write("k.cl", "#include \"big.h\"\n");
  write("big.h", std::string(4000, 'x') + "\n");
  auto tree = open_directory_tree(repo());
  ASSERT_TRUE(tree.ok());
  InlineOptions opts;
  opts.max_output_bytes = 1000;
  auto r = inline_includes(**tree, "k.cl", "#include \"big.h\"\n", opts);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->too_large);
}

TEST(NormalizeRelative, RejectsAbsoluteAndEscapingPaths) {
  EXPECT_EQ(normalize_relative("a/./b/../c.h"), std::optional<std::string>("a/c.h"));
  EXPECT_EQ(normalize_relative("/etc/passwd"), std::nullopt);
  EXPECT_EQ(normalize_relative("../x"), std::nullopt);
  EXPECT_EQ(normalize_relative("a/../../x"), std::nullopt);
  EXPECT_EQ(normalize_relative("a/.."), std::nullopt);
}

TEST(DirectoryTree, RefusesToReadOutsideTheRoot) {
  TempDir dir;
  write_text(dir / "secret", "secret\n");
  write_text(dir / "repo/k.cl", "kernel void A() {}\n");
  std::filesystem::create_symlink(dir / "secret", dir / "repo/link.cl");
  auto tree = open_directory_tree(dir / "repo");
  ASSERT_TRUE(tree.ok());
  EXPECT_FALSE((*tree)->read("../secret", 100).ok());
  EXPECT_FALSE((*tree)->read("link.cl", 100).ok());
  EXPECT_TRUE((*tree)->read("k.cl", 100).ok());
  auto entries = (*tree)->list();
  ASSERT_TRUE(entries.ok());
  std::vector<std::string> listed;
  for (const auto& e : *entries) listed.push_back(e.path + (e.problem.empty() ? "" : ":" + e.problem));
  EXPECT_EQ(listed, (std::vector<std::string>{"k.cl", "link.cl:symlink_outside_root"}));
}

TEST(GitTree, ReadsTheHeadCommitNotTheWorkTree) {
  TempDir dir;
  std::string repo = dir / "repo";
  clgen::testing::make_git_repo(repo, {{"k.cl", "kernel void A() {}\n"}, {"inc/a.h", "int a;\n"}},
                                {{"out.cl", "../../outside.cl"}, {"in.cl", "k.cl"}});
  write_text(repo + "/k.cl", "changed in the work tree\n");
  write_text(repo + "/untracked.cl", "not committed\n");
  auto tree = open_git_tree(repo);
  ASSERT_TRUE(tree.ok()) << tree.status().message();
  auto text = (*tree)->read("k.cl", 100);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "kernel void A() {}\n");
  EXPECT_FALSE((*tree)->is_file("untracked.cl"));
  EXPECT_FALSE((*tree)->is_file("out.cl"));
  EXPECT_EQ(*(*tree)->read("in.cl", 100), "kernel void A() {}\n");
  auto entries = (*tree)->list();
  ASSERT_TRUE(entries.ok());
  std::vector<std::string> listed;
  for (const auto& e : *entries) listed.push_back(e.path + (e.problem.empty() ? "" : ":" + e.problem));
  EXPECT_EQ(listed, (std::vector<std::string>{"in.cl", "inc/a.h", "k.cl", "out.cl:symlink_outside_root"}));
}

}  // namespace
}  // namespace clgen::corpus
