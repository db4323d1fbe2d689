#pragma once
// Runs tests/server/fault_proxy.py (a TCP proxy that stalls or resets the connection
// after N commands) in front of the test server, for the tests of timeouts, lost
// connections and partial writes. The proxy's standard input is a pipe this object
// holds: the proxy exits when the test process ends, however it ends.

#include "support.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace odm_test {

/// "host:port" of a URI naming one server without credentials or TLS, or "" (a proxy
/// cannot stand in front of a replica set it would have to rewrite, or of TLS).
inline std::string single_host(const std::string& uri) {
  const std::string scheme = "mongodb://";
  if (uri.rfind(scheme, 0) != 0) return {};
  const std::size_t end = uri.find_first_of("/?", scheme.size());
  const std::string hosts = uri.substr(scheme.size(), end == std::string::npos ? std::string::npos : end - scheme.size());
  if (hosts.find_first_of(",@") != std::string::npos || hosts.find(':') == std::string::npos) return {};
  if (uri.find("tls=true") != std::string::npos || uri.find("ssl=true") != std::string::npos) return {};
  return hosts;
}

/// tests/server/fault_proxy.py, as CTest names it in ODM_FAULT_PROXY_SCRIPT (an environment
/// variable rather than a compiled-in path, so that the test objects do not depend on
/// where the checkout is and a compiler cache shares them between clones).
inline std::string fault_proxy_script() {
  const char* script = std::getenv("ODM_FAULT_PROXY_SCRIPT");
  return script != nullptr ? script : "";
}

class FaultProxy {
 public:
  struct Options {
    std::string fault = "none";  // "none", "stall" or "reset"
    int after = 0;               // commands forwarded before the fault
    std::string commands;        // the command names that count ("" = all but the handshake's)
    int max_write_batch_size = 0;  // rewrites the server's maxWriteBatchSize when > 0
  };

  /// Starts the proxy in front of `upstream` ("host:port"); fails the test when it does not start.
  FaultProxy(const std::string& upstream, const Options& options) {
    port_file_ = ::testing::TempDir() + "odm_fault_proxy_" + std::to_string(::getpid()) + "_" +
                 std::to_string(++serial()) + ".port";
    std::remove(port_file_.c_str());
    const std::string script = fault_proxy_script();
    if (script.empty()) {
      ADD_FAILURE() << "ODM_FAULT_PROXY_SCRIPT is not set: run the integration tests with ctest, or set it to "
                       "tests/server/fault_proxy.py";
      return;
    }
    std::vector<std::string> args = {"/usr/bin/python3", script, "--upstream", upstream,
                                     "--port-file", port_file_, "--fault", options.fault,
                                     "--after", std::to_string(options.after)};
    if (!options.commands.empty()) args.insert(args.end(), {"--commands", options.commands});
    if (options.max_write_batch_size > 0)
      args.insert(args.end(), {"--max-write-batch-size", std::to_string(options.max_write_batch_size)});
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe2 failed";
      return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
    const int spawned = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[0]);
    stdin_ = fds[1];
    if (spawned != 0) {
      pid_ = -1;
      ADD_FAILURE() << "cannot start " << script;
      return;
    }
    // Wait for the port, with a limit.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream in(port_file_);
      if (in >> port_) return;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    port_ = 0;
    ADD_FAILURE() << "the fault proxy did not start (no port in " << port_file_ << ")";
  }

  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  ~FaultProxy() {
    if (stdin_ >= 0) ::close(stdin_);  // the proxy exits at the end of its input
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    std::remove(port_file_.c_str());
  }

  bool running() const noexcept { return port_ != 0; }

  /// A URI to the proxy (one server, connected to directly).
  std::string uri() const { return "mongodb://127.0.0.1:" + std::to_string(port_) + "/?directConnection=true"; }

 private:
  static int& serial() {
    static int n = 0;
    return n;
  }

  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
  std::string port_file_;
};

/// A driver test fixture whose tests put a FaultProxy in front of the server: skipped
/// when the server's URI cannot be proxied. `upstream_` is what the proxy forwards to.
template <class Base = DriverTest>
class ThroughAProxy : public Base {
 protected:
  void SetUp() override {
    Base::SetUp();
    if (::testing::Test::IsSkipped() || ::testing::Test::HasFatalFailure()) return;
    upstream_ = single_host(this->uri_);
    if (upstream_.empty()) GTEST_SKIP() << "the fault proxy needs a single-host URI without credentials or TLS";
  }
  std::string upstream_;
};

}  // namespace odm_test
