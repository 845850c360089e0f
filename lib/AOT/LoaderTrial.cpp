//===- LoaderTrial.cpp - A shared library tried by the system's loader first -===//

#include "opal/AOT/LoaderTrial.h"

#include "opal/Support/ElfFile.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

extern char **environ;

using namespace opal;

namespace {

/// The dynamic loader this process was started by (its executable's
/// PT_INTERP); "" if it cannot be read.
const std::string &dynamicLoader() {
  static const std::string path = [] {
    int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return std::string();
    ElfHeaders headers;
    std::string loader;
    if (readElfHeaders(fd, headers).empty())
      for (const ElfW(Phdr) &program : headers.programs)
        if (program.p_type == PT_INTERP && program.p_filesz > 1 && program.p_filesz < 4096) {
          std::string text(program.p_filesz, '\0');
          if (::pread(fd, text.data(), text.size(), static_cast<off_t>(program.p_offset)) ==
              static_cast<ssize_t>(text.size()))
            loader = text.c_str(); // up to its NUL
        }
    ::close(fd);
    return loader;
  }();
  return path;
}

} // namespace

std::string aot::loaderTrialProblem(const std::string &path) {
  const std::string &loader = dynamicLoader();
  if (loader.empty() || ::access(loader.c_str(), X_OK) != 0)
    return "";
  // The environment of this process (its library paths), in trace mode:
  // the loader maps and relocates the library and its dependencies, prints
  // them, and exits without running any of their code.
  std::vector<std::string> settings;
  for (char **entry = environ; *entry; ++entry)
    if (std::strncmp(*entry, "LD_TRACE_LOADED_OBJECTS=", 24) != 0 &&
        std::strncmp(*entry, "LD_WARN=", 8) != 0 && std::strncmp(*entry, "LD_BIND_NOW=", 12) != 0)
      settings.emplace_back(*entry);
  settings.emplace_back("LD_TRACE_LOADED_OBJECTS=1");
  settings.emplace_back("LD_WARN=yes");
  settings.emplace_back("LD_BIND_NOW=yes");
  std::vector<char *> envp;
  for (std::string &setting : settings)
    envp.push_back(setting.data());
  envp.push_back(nullptr);
  std::string program = loader, file = path;
  char *argv[] = {program.data(), file.data(), nullptr};

  // The loader's messages (a fatal error's) come back through a pipe.
  int messages[2];
  if (::pipe2(messages, O_CLOEXEC) != 0)
    return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, messages[1], STDERR_FILENO);
  pid_t child = 0;
  int spawned = posix_spawn(&child, program.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(messages[1]);
  ::fcntl(messages[0], F_SETFL, O_NONBLOCK);
  std::string text;
  auto drain = [&] {
    char chunk[4096];
    ssize_t got;
    while ((got = ::read(messages[0], chunk, sizeof chunk)) > 0)
      if (text.size() < 65536)
        text.append(chunk, static_cast<size_t>(got));
  };
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{messages[0]};
  if (spawned != 0)
    return ""; // no trial possible: dlopen alone decides
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  auto pause = std::chrono::microseconds(200);
  while (true) {
    drain();
    pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child)
      break;
    if (done < 0 && errno != EINTR)
      return "";
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      return path + " is not a shared library this process can load: the system's dynamic "
                    "loader did not finish with it in 30 s";
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
  drain();
  if (WIFSIGNALED(status))
    return path + " is not a shared library this process can load: the system's dynamic "
                  "loader crashed on it (" + ::strsignal(WTERMSIG(status)) + ") in a trial run";
  // 127: the loader's fatal error (an assertion on a damaged hash table
  // ends the process that meets it). Other codes (a dependency not found)
  // are left for dlopen to report.
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    std::string first = text.substr(0, text.find('\n'));
    return path + " is not a shared library this process can load: the system's dynamic "
                  "loader refused it in a trial run" + (first.empty() ? "" : ": " + first);
  }
  return "";
}
