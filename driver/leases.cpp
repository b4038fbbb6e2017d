// `drive_leases`: claim with one conditional upsert, renew, release.
#include "driver/leases.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <limits>
#include <optional>

#include "support/log.h"
#include "support/text.h"

namespace clgen::driver {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return host;
}

std::string make_owner() {
  return host_name() + ":" + std::to_string(::getpid()) + ":" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

// Whether `owner` (make_owner's form) names a process of this host that no
// longer exists: a drive killed with SIGKILL, whose lease need not be waited
// out. (A pid reused within the lease's life only delays the take-over.)
bool owner_is_dead_here(const std::string& owner) {
  const std::string prefix = host_name() + ":";
  if (owner.compare(0, prefix.size(), prefix) != 0) return false;
  size_t end = owner.find(':', prefix.size());
  if (end == std::string::npos) return false;
  std::optional<uint64_t> pid = parse_uint64(owner.substr(prefix.size(), end - prefix.size()));
  if (!pid || *pid == 0 || *pid > uint64_t(std::numeric_limits<pid_t>::max())) return false;
  return ::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

Expected<std::unique_ptr<DriveLeases>> DriveLeases::open(const std::string& path, double ttl_seconds) {
  ASSIGN_OR_RETURN(Database db, Database::open(path));
  RETURN_IF_ERROR_CTX(db.exec("CREATE TABLE IF NOT EXISTS drive_leases("
                              "item TEXT PRIMARY KEY,"       // runs.kernel_sha256 of the source
                              "owner TEXT NOT NULL,"         // DriveLeases::owner()
                              "expires_at REAL NOT NULL)"),  // Unix seconds
                      "creating the drive_leases table");
  // Leases of drives that died long ago: no one else would remove them.
  ASSIGN_OR_RETURN(Statement expired, db.prepare("DELETE FROM drive_leases WHERE expires_at < ?1"));
  RETURN_IF_ERROR(expired.bind(1, now_seconds()));
  RETURN_IF_ERROR_CTX(expired.run(), "removing expired drive leases");
  return std::unique_ptr<DriveLeases>(new DriveLeases(std::move(db), ttl_seconds));
}

DriveLeases::DriveLeases(Database db, double ttl_seconds)
    : db_(std::move(db)), ttl_(ttl_seconds), owner_(make_owner()) {
  heartbeat_ = std::thread([this] { heartbeat(); });
}

DriveLeases::~DriveLeases() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  heartbeat_.join();
  auto st = db_.prepare("DELETE FROM drive_leases WHERE owner = ?1");
  if (st.ok() && st->bind(1, owner_).ok()) (void)st->run();
}

Expected<bool> DriveLeases::try_claim(const std::string& item) {
  std::lock_guard<std::mutex> lock(mu_);
  // One statement, so atomic: insert, or take over a lease that expired or
  // is already this process's.
  ASSIGN_OR_RETURN(Statement st,
                   db_.prepare("INSERT INTO drive_leases(item, owner, expires_at) VALUES (?1, ?2, ?3) "
                               "ON CONFLICT(item) DO UPDATE SET owner = excluded.owner, "
                               "expires_at = excluded.expires_at "
                               "WHERE drive_leases.owner = excluded.owner OR drive_leases.expires_at < ?4"));
  const double now = now_seconds();
  RETURN_IF_ERROR(st.bind(1, item));
  RETURN_IF_ERROR(st.bind(2, owner_));
  RETURN_IF_ERROR(st.bind(3, now + ttl_));
  RETURN_IF_ERROR(st.bind(4, now));
  RETURN_IF_ERROR_CTX(st.run(), "claiming the drive lease of " + item);
  if (db_.changes() == 0) {
    ASSIGN_OR_RETURN(Statement holder, db_.prepare("SELECT owner FROM drive_leases WHERE item = ?1"));
    RETURN_IF_ERROR(holder.bind(1, item));
    ASSIGN_OR_RETURN(bool row, holder.step());
    if (!row || !owner_is_dead_here(holder.column_text(0))) return false;
    // Taken from that owner only: a third drive may take it over at once too.
    ASSIGN_OR_RETURN(Statement take, db_.prepare("UPDATE drive_leases SET owner = ?1, expires_at = ?2 "
                                                 "WHERE item = ?3 AND owner = ?4"));
    RETURN_IF_ERROR(take.bind(1, owner_));
    RETURN_IF_ERROR(take.bind(2, now + ttl_));
    RETURN_IF_ERROR(take.bind(3, item));
    RETURN_IF_ERROR(take.bind(4, holder.column_text(0)));
    RETURN_IF_ERROR_CTX(take.run(), "taking over the drive lease of " + item);
    if (db_.changes() == 0) return false;
  }
  ++held_[item];
  return true;
}

Status DriveLeases::release(const std::string& item) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(item);
  if (it == held_.end()) return ok_status();
  if (--it->second > 0) return ok_status();
  held_.erase(it);
  ASSIGN_OR_RETURN(Statement st, db_.prepare("DELETE FROM drive_leases WHERE item = ?1 AND owner = ?2"));
  RETURN_IF_ERROR(st.bind(1, item));
  RETURN_IF_ERROR(st.bind(2, owner_));
  return st.run().with_context("releasing the drive lease of " + item);
}

void DriveLeases::heartbeat() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto period = std::chrono::duration<double>(ttl_ / 3);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
    if (held_.empty()) continue;
    auto st = db_.prepare("UPDATE drive_leases SET expires_at = ?1 WHERE owner = ?2");
    Status s = st.status();
    if (s.ok()) s = st->bind(1, now_seconds() + ttl_);
    if (s.ok()) s = st->bind(2, owner_);
    if (s.ok()) s = st->run();
    // A missed renewal costs at most a source driven twice (runs are
    // INSERT OR IGNORE), so it is logged, not fatal.
    if (!s.ok()) spdlog::warn("renewing drive leases: {}", s.message());
  }
}

}  // namespace clgen::driver
