//===- RegularFile.cpp - Reading a file that must be a regular one --------===//

#include "opal/Support/RegularFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

using namespace opal;

Expected<std::string> opal::readRegularFile(const std::string &path, FileProblem *problem) {
  auto fail = [&](FileProblem kind, const std::string &why) {
    if (problem)
      *problem = kind;
    return makeUnexpected(Error(why));
  };
  // Opened without blocking (a FIFO's open waits for a writer), then
  // checked on the descriptor itself.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return fail(FileProblem::CannotOpen, std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return fail(FileProblem::CannotOpen, std::strerror(errno));
  if (S_ISDIR(info.st_mode))
    return fail(FileProblem::Directory, "it is a directory");
  if (!S_ISREG(info.st_mode))
    return fail(FileProblem::NotRegular, "it is not a regular file (a FIFO, socket or device)");
  std::string text;
  char chunk[1 << 16];
  while (true) {
    ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return fail(FileProblem::ReadError, std::string("read error: ") + std::strerror(errno));
    if (got == 0)
      return text;
    text.append(chunk, static_cast<size_t>(got));
  }
}
