#include "microbench/harness/fd_passing.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "microbench/harness/comm.h"

namespace pk {
namespace {

struct Message {
  int32_t from_local_rank;
  int32_t pad;
  uint64_t tag;
};

sockaddr_un abstract_address(const std::string& name, socklen_t* len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (name.size() + 1 > sizeof a.sun_path) throw std::runtime_error("socket name too long: " + name);
  a.sun_path[0] = '\0';  // abstract namespace: nothing on disk to clean up after a crash
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return a;
}

std::string sys_error(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

FdChannel::FdChannel(std::string name_prefix, int local_rank) : prefix_(std::move(name_prefix)), local_rank_(local_rank) {
  sock_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (sock_ < 0) throw std::runtime_error(sys_error("socket(AF_UNIX)"));
  socklen_t len = 0;
  sockaddr_un a = abstract_address(prefix_ + "." + std::to_string(local_rank_), &len);
  if (::bind(sock_, reinterpret_cast<sockaddr*>(&a), len) != 0) {
    const std::string e = sys_error("bind(" + prefix_ + "." + std::to_string(local_rank_) + ")");
    ::close(sock_);
    throw std::runtime_error(e);
  }
}

FdChannel::~FdChannel() {
  if (sock_ >= 0) ::close(sock_);
}

void FdChannel::send(int to_local_rank, int fd, uint64_t tag) {
  Message m{local_rank_, 0, tag};
  iovec iov{&m, sizeof m};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr h{};
  socklen_t len = 0;
  sockaddr_un to = abstract_address(prefix_ + "." + std::to_string(to_local_rank), &len);
  h.msg_name = &to;
  h.msg_namelen = len;
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  h.msg_control = control;
  h.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&h);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;  // the kernel installs a duplicate of fd in the receiver
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  for (int attempt = 0;; ++attempt) {
    if (::sendmsg(sock_, &h, 0) == static_cast<ssize_t>(sizeof m)) return;
    // The receiver may not have bound yet (callers barrier first) or its queue is full.
    if ((errno == ECONNREFUSED || errno == ENOENT || errno == EAGAIN) && attempt < 1000) {
      ::usleep(1000);
      continue;
    }
    throw std::runtime_error(sys_error("sendmsg(SCM_RIGHTS) to local rank " + std::to_string(to_local_rank)));
  }
}

FdChannel::Received FdChannel::receive(double timeout_ms) {
  pollfd p{sock_, POLLIN, 0};
  const int rc = ::poll(&p, 1, static_cast<int>(timeout_ms));
  if (rc < 0) throw std::runtime_error(sys_error("poll"));
  if (rc == 0) throw std::runtime_error("no file descriptor arrived within " + std::to_string(timeout_ms) + " ms");
  Message m{};
  iovec iov{&m, sizeof m};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr h{};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  h.msg_control = control;
  h.msg_controllen = sizeof control;
  const ssize_t n = ::recvmsg(sock_, &h, MSG_CMSG_CLOEXEC);
  if (n != static_cast<ssize_t>(sizeof m)) throw std::runtime_error(sys_error("recvmsg"));
  if (h.msg_flags & MSG_CTRUNC) throw std::runtime_error("recvmsg: control data truncated (descriptor limit?)");
  cmsghdr* c = CMSG_FIRSTHDR(&h);
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
    throw std::runtime_error("recvmsg: message without a file descriptor");
  Received r;
  std::memcpy(&r.fd, CMSG_DATA(c), sizeof(int));
  r.from_local_rank = m.from_local_rank;
  r.tag = m.tag;
  return r;
}

std::vector<int> exchange_fds(Comm& comm, FdChannel& ch, const std::vector<int>& node_local_ranks, int me, int fd,
                              uint64_t tag, double timeout_ms) {
  int max_local = me;
  for (int l : node_local_ranks) max_local = std::max(max_local, l);
  std::vector<int> got(max_local + 1, -1);
  std::string err;
  try {
    for (int l : node_local_ranks)
      if (l != me) ch.send(l, fd, tag);
    for (size_t i = 0; i + 1 < node_local_ranks.size(); ++i) {
      FdChannel::Received r = ch.receive(timeout_ms);
      if (r.tag != tag || r.from_local_rank < 0 || r.from_local_rank > max_local || got[r.from_local_rank] >= 0) {
        ::close(r.fd);
        throw std::runtime_error("descriptor exchange out of step: tag " + std::to_string(r.tag) + " from local rank " +
                                 std::to_string(r.from_local_rank) + ", expected tag " + std::to_string(tag));
      }
      got[r.from_local_rank] = r.fd;
    }
  } catch (const std::exception& e) {
    err = e.what();
  }
  // Nobody starts the next exchange before everyone finished this one.
  err = comm.first_error(err);
  comm.barrier();
  if (!err.empty()) {
    for (int& f : got)
      if (f >= 0) ::close(f);
    throw std::runtime_error(err);
  }
  return got;
}

}  // namespace pk
