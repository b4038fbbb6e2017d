// Corpus test helpers.
#include "tests/corpus/test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include "support/sqlite.h"
#include "tests/cli/run_command.h"

namespace clgen::testing {

namespace fs = std::filesystem;

void write_text(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
}

void git(const std::string& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/git", "-C", dir, "-c", "user.name=clgen test",
                                   "-c", "user.email=test@localhost", "-c", "init.defaultBranch=master",
                                   "-c", "core.symlinks=true"};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult r = run_command(argv);
  ASSERT_EQ(r.exit_code, 0) << "git " << args.front() << ": " << r.err;
}

std::string make_git_repo(const std::string& dir, const std::map<std::string, std::string>& files,
                          const std::map<std::string, std::string>& symlinks) {
  fs::create_directories(dir);
  git(dir, {"init", "-q"});
  for (const auto& [path, content] : files) write_text(dir + "/" + path, content);
  for (const auto& [path, target] : symlinks) {
    fs::create_directories(fs::path(dir + "/" + path).parent_path());
    fs::create_symlink(target, dir + "/" + path);
  }
  git(dir, {"add", "-A"});
  git(dir, {"commit", "-q", "-m", "test repository"});
  CommandResult r = run_command({"/usr/bin/git", "-C", dir, "rev-parse", "HEAD"});
  std::string head = r.out.substr(0, 40);
  return head;
}

void write_archive(const std::string& path, const std::string& format,
                   const std::vector<std::pair<std::string, std::string>>& entries,
                   const std::vector<std::pair<std::string, std::string>>& symlinks) {
  archive* a = archive_write_new();
  if (format == "zip") {
    archive_write_set_format_zip(a);
  } else {
    archive_write_set_format_pax_restricted(a);
    if (format == "tar.xz") archive_write_add_filter_xz(a);
    else archive_write_add_filter_gzip(a);
  }
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK) << archive_error_string(a);
  for (const auto& [name, content] : entries) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(content.size()));
    ASSERT_EQ(archive_write_header(a, e), ARCHIVE_OK) << name << ": " << archive_error_string(a);
    ASSERT_EQ(archive_write_data(a, content.data(), content.size()), static_cast<la_ssize_t>(content.size()));
    archive_entry_free(e);
  }
  for (const auto& [name, target] : symlinks) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_filetype(e, AE_IFLNK);
    archive_entry_set_perm(e, 0777);
    archive_entry_set_symlink(e, target.c_str());
    ASSERT_EQ(archive_write_header(a, e), ARCHIVE_OK) << name << ": " << archive_error_string(a);
    archive_entry_free(e);
  }
  ASSERT_EQ(archive_write_close(a), ARCHIVE_OK) << archive_error_string(a);
  archive_write_free(a);
}

pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    setpgid(0, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int kill_and_wait(pid_t pid, int sig) {
  ::kill(pid, sig);
  return wait_exit(pid);
}

bool wait_until(const std::function<bool()>& pred, double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

bool StoreSnapshot::operator==(const StoreSnapshot& o) const {
  return contents == o.contents && origins == o.origins && skipped == o.skipped &&
         repositories == o.repositories;
}

namespace {
std::vector<std::string> rows(Database& db, const std::string& sql) {
  std::vector<std::string> out;
  auto st = db.prepare(sql);
  EXPECT_TRUE(st.ok()) << st.status().message();
  if (!st.ok()) return out;
  for (;;) {
    auto more = st->step();
    if (!more.ok() || !*more) break;
    out.push_back(st->column_text(0));
  }
  return out;
}
}  // namespace

StoreSnapshot snapshot_store(const std::string& db_path) {
  StoreSnapshot s;
  auto db = Database::open(db_path);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return s;
  s.contents = rows(*db, "SELECT sha256 || '|' || size || '|' || language FROM content_files ORDER BY 1");
  s.origins = rows(*db,
                   "SELECT r.source || '|' || o.commit_sha || '|' || o.path || '|' || o.sha256 || '|' || o.role "
                   "FROM content_origins o JOIN repositories r ON r.id = o.repository_id ORDER BY 1");
  s.skipped = rows(*db,
                   "SELECT r.source || '|' || s.commit_sha || '|' || s.path || '|' || s.reason "
                   "FROM skipped s JOIN repositories r ON r.id = s.repository_id ORDER BY 1");
  s.repositories = rows(*db,
                        "SELECT source || '|' || kind || '|' || COALESCE(commit_sha, '-') || '|' || "
                        "COALESCE(owner, '') || '|' || COALESCE(name, '') || '|' || COALESCE(stars, '') "
                        "|| '|' || COALESCE(forks, '') || '|' || COALESCE(license, '') || '|' || COALESCE(domain, '') "
                        "FROM repositories ORDER BY 1");
  return s;
}

}  // namespace clgen::testing
