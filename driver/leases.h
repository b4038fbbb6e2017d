// Leases on drive work (one kernel source at a time) in the workspace
// database, so that two `clgen drive` processes on one workspace never drive
// the same source at once: a lease is held while its source is driven,
// renewed by a heartbeat, released once its runs are stored, and taken over
// by another process when its holder died: once it expired, or at once when
// the holder was a process of this host that no longer exists.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::driver {

class DriveLeases {
 public:
  // Opens its own connection to the database at `path` and creates
  // `drive_leases` if needed; a lease lives `ttl_seconds` past its last
  // renewal (a heartbeat renews this process's leases every third of it).
  // Fails with the database's error.
  static Expected<std::unique_ptr<DriveLeases>> open(const std::string& path, double ttl_seconds = 30);
  ~DriveLeases();  // stops the heartbeat and releases every lease still held
  DriveLeases(const DriveLeases&) = delete;
  DriveLeases& operator=(const DriveLeases&) = delete;

  // Takes the lease on `item` unless another holder's lease on it is live;
  // true = this process holds it (claims of one item by this process nest).
  // Thread-safe. Fails with the database's error.
  Expected<bool> try_claim(const std::string& item);
  // Gives one claim of `item` back; the lease ends with the last. Thread-safe.
  Status release(const std::string& item);
  // This process's name in the table: host, pid and start time.
  const std::string& owner() const { return owner_; }

 private:
  DriveLeases(Database db, double ttl_seconds);
  void heartbeat();

  std::mutex mu_;  // guards db_ (one connection, used from several threads) and held_
  Database db_;
  const double ttl_;
  const std::string owner_;
  std::map<std::string, int> held_;  // item -> nested claims
  bool stopping_ = false;
  std::condition_variable wake_;
  std::thread heartbeat_;
};

}  // namespace clgen::driver
