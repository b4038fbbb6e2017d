// SourceTree over the HEAD commit of a git repository, read through libgit2
// from the object database (never the work tree). Symlinks are git blobs
// whose content is the target; they are resolved lexically inside the tree.
#include <git2.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "corpus/git_util.h"
#include "corpus/source_tree.h"

namespace clgen::corpus {

void ensure_libgit2() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

std::string git_error_message(const std::string& what) {
  const git_error* e = git_error_last();
  return what + ": " + (e && e->message ? e->message : "unknown libgit2 error");
}

namespace {

struct RepoDeleter {
  void operator()(git_repository* r) const { git_repository_free(r); }
};
using RepoPtr = std::unique_ptr<git_repository, RepoDeleter>;

Expected<RepoPtr> open_repo(const std::string& path) {
  ensure_libgit2();
  git_repository* repo = nullptr;
  if (git_repository_open_ext(&repo, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0)
    return not_found(git_error_message("opening git repository " + path));
  return RepoPtr(repo);
}

struct Node {
  git_oid oid;
  bool link = false;
};

class GitTree : public SourceTree {
 public:
  GitTree(RepoPtr repo, std::string path, std::string commit)
      : repo_(std::move(repo)), path_(std::move(path)), commit_(std::move(commit)) {}

  Status load() {
    git_object* obj = nullptr;
    if (git_revparse_single(&obj, repo_.get(), "HEAD^{tree}") != 0)
      return not_found(git_error_message("reading HEAD tree of " + path_));
    git_tree* tree = reinterpret_cast<git_tree*>(obj);
    int rc = git_tree_walk(tree, GIT_TREEWALK_PRE, &GitTree::walk_cb, this);
    git_object_free(obj);
    if (rc != 0) return io_error(git_error_message("walking HEAD tree of " + path_));
    if (git_repository_odb(&odb_, repo_.get()) != 0)
      return io_error(git_error_message("opening object database of " + path_));
    return ok_status();
  }

  ~GitTree() override {
    if (odb_) git_odb_free(odb_);
  }

  Expected<std::vector<TreeEntry>> list() override {
    std::vector<TreeEntry> out;
    for (const auto& [path, node] : nodes_) {
      TreeEntry e;
      e.path = path;
      if (node.link) {
        std::string why;
        auto target = follow(path, &why);
        if (!target) {
          if (why.empty()) continue;  // dangling or a directory link: nothing to read
          e.problem = "symlink_outside_root";
          e.detail = why;
          out.push_back(std::move(e));
          continue;
        }
        e.size = blob_size(nodes_.at(*target).oid);
      } else {
        e.size = blob_size(node.oid);
      }
      out.push_back(std::move(e));
    }
    return out;  // std::map iteration is already sorted
  }

  Expected<std::string> read(const std::string& path, uint64_t max_bytes) override {
    auto norm = normalize_relative(path);
    if (!norm) return not_found(path + ": not a file inside " + describe());
    std::string why;
    auto target = follow(*norm, &why);
    if (!target) return not_found(path + ": not a file inside " + describe());
    const git_oid& oid = nodes_.at(*target).oid;
    uint64_t size = blob_size(oid);
    if (size > max_bytes)
      return invalid_argument("reading " + path + ": " + std::to_string(size) +
                              " bytes exceeds the limit of " + std::to_string(max_bytes));
    git_blob* blob = nullptr;
    if (git_blob_lookup(&blob, repo_.get(), &oid) != 0)
      return io_error(git_error_message("reading blob " + path));
    std::string data(static_cast<const char*>(git_blob_rawcontent(blob)),
                     static_cast<size_t>(git_blob_rawsize(blob)));
    git_blob_free(blob);
    return data;
  }

  bool is_file(const std::string& path) override {
    auto norm = normalize_relative(path);
    std::string why;
    return norm && follow(*norm, &why).has_value();
  }

  std::string describe() const override {
    return "git repository " + path_ + " at " + commit_.substr(0, 12);
  }

 private:
  static int walk_cb(const char* root, const git_tree_entry* entry, void* payload) {
    auto* self = static_cast<GitTree*>(payload);
    git_filemode_t mode = git_tree_entry_filemode(entry);
    if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
        mode != GIT_FILEMODE_LINK)
      return 0;  // trees are descended; submodules are not
    Node node;
    git_oid_cpy(&node.oid, git_tree_entry_id(entry));
    node.link = mode == GIT_FILEMODE_LINK;
    self->nodes_[std::string(root) + git_tree_entry_name(entry)] = node;
    return 0;
  }

  uint64_t blob_size(const git_oid& oid) const {
    size_t len = 0;
    git_object_t type;
    if (git_odb_read_header(&len, &type, odb_, &oid) != 0) return 0;
    return len;
  }

  // Resolves a path through symlinks (at most 8 hops) to a regular blob. On
  // failure `why` is set when a link leads outside the tree, empty otherwise.
  std::optional<std::string> follow(std::string path, std::string* why) {
    for (int hop = 0; hop < 8; ++hop) {
      auto it = nodes_.find(path);
      if (it == nodes_.end()) return std::nullopt;
      if (!it->second.link) return path;
      git_blob* blob = nullptr;
      if (git_blob_lookup(&blob, repo_.get(), &it->second.oid) != 0) return std::nullopt;
      std::string target(static_cast<const char*>(git_blob_rawcontent(blob)),
                         static_cast<size_t>(git_blob_rawsize(blob)));
      git_blob_free(blob);
      std::string dir = parent_dir(path);
      auto next = target.empty() || target[0] == '/'
                      ? std::nullopt
                      : normalize_relative(dir.empty() ? target : dir + "/" + target);
      if (!next) {
        *why = "symlink to '" + target + "' leads outside the repository";
        return std::nullopt;
      }
      path = *next;
    }
    return std::nullopt;  // a symlink loop
  }

  RepoPtr repo_;
  std::string path_;
  std::string commit_;
  git_odb* odb_ = nullptr;
  std::map<std::string, Node> nodes_;
};

}  // namespace

bool is_git_repository(const std::string& path) {
  ensure_libgit2();
  git_repository* repo = nullptr;
  if (git_repository_open_ext(&repo, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0)
    return false;
  git_repository_free(repo);
  return true;
}

Expected<std::string> git_head_commit(const std::string& path) {
  ASSIGN_OR_RETURN(RepoPtr repo, open_repo(path));
  git_oid oid;
  if (git_reference_name_to_id(&oid, repo.get(), "HEAD") != 0)
    return not_found(git_error_message("resolving HEAD of " + path));
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &oid);
  return std::string(hex);
}

Expected<std::unique_ptr<SourceTree>> open_git_tree(const std::string& path) {
  ASSIGN_OR_RETURN(std::string commit, git_head_commit(path));
  ASSIGN_OR_RETURN(RepoPtr repo, open_repo(path));
  auto tree = std::make_unique<GitTree>(std::move(repo), path, commit);
  RETURN_IF_ERROR(tree->load());
  return std::unique_ptr<SourceTree>(std::move(tree));
}

}  // namespace clgen::corpus
