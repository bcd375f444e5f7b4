#include "rhoflow/exec/team.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <iostream>
#include <mutex>
#include <thread>

#include "rhoflow/core/errors.hpp"

#if RHOFLOW_HAVE_MPI
#include <mpi.h>
#include <unistd.h>
#endif

namespace rhoflow {

using detail::PoolError;
using detail::PoolQueue;
using detail::PoolResultHook;
using detail::PoolTask;
using detail::PoolWork;

namespace {

std::atomic<int> pool_depth{0};  // pools running on this rank (nested work stays local)
std::atomic<bool> failure_shared{false};

struct DepthGuard {
    DepthGuard() { ++pool_depth; }
    ~DepthGuard() { --pool_depth; }
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// An error's category and text, to travel between ranks.
struct ErrorInfo {
    FailureKind kind = FailureKind::other;
    std::string field;  // InvalidArgument's field
    std::string message;
};

ErrorInfo describe(std::exception_ptr e) {
    ErrorInfo info;
    try {
        std::rethrow_exception(e);
    } catch (const InvalidArgument& x) {
        info = {FailureKind::invalid_input, x.field(), x.what()};
    } catch (const std::exception& x) {
        info = {failure_kind(x), "", x.what()};
    } catch (...) {
        info = {FailureKind::other, "", "unknown error"};
    }
    return info;
}

[[maybe_unused]] std::exception_ptr rebuild(const ErrorInfo& info, const std::string& message) {
    if (info.kind == FailureKind::invalid_input) return std::make_exception_ptr(InvalidArgument(info.field, message));
    if (info.kind == FailureKind::numerical) return std::make_exception_ptr(NumericalError(message));
    return std::make_exception_ptr(std::runtime_error(message));
}

// Smallest order first, then largest cost; among equals, the task queued first (a
// deterministic hand-out order).
struct Queued {
    PoolTask task;
    std::uint64_t seq = 0;
};
bool before(const Queued& a, const Queued& b) {
    if (a.task.order != b.task.order) return a.task.order < b.task.order;
    if (a.task.cost != b.task.cost) return a.task.cost > b.task.cost;
    return a.seq < b.seq;
}

// Rank 0's queue: root-only tasks and sendable tasks, each ordered by cost.
class Queue final : public PoolQueue {
public:
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<Queued> root, shared;
    std::uint64_t seq = 0;
    std::int64_t in_flight = 0;  // taken and not yet finished, anywhere
    bool failed = false;
    std::exception_ptr error;
    std::uint64_t error_tag = 0;
    int error_rank = 0;
    std::string error_message;

    void add(PoolTask task) override {
        std::lock_guard<std::mutex> lock(mutex);
        add_locked(std::move(task));
    }
    void add_locked(PoolTask task) {
        auto& q = task.root_only ? root : shared;
        Queued e{std::move(task), seq++};
        q.insert(std::upper_bound(q.begin(), q.end(), e, before), std::move(e));
        changed.notify_all();
    }
    bool empty_locked() const { return root.empty() && shared.empty(); }
    // Takes the next task for rank 0's main thread: root-only ones first.
    bool take_local(Queued& out) {
        auto& q = !root.empty() ? root : shared;
        if (q.empty()) return false;
        out = std::move(q.front());
        q.erase(q.begin());
        ++in_flight;
        return true;
    }
    bool take_shared(Queued& out) {
        if (shared.empty()) return false;
        out = std::move(shared.front());
        shared.erase(shared.begin());
        ++in_flight;
        return true;
    }
    void fail_locked(std::uint64_t tag, int rank, std::exception_ptr e, const std::string& message) {
        if (!failed) {
            failed = true;
            error = std::move(e);
            error_tag = tag;
            error_rank = rank;
            error_message = message;
        }
        changed.notify_all();
    }
};

// What hooks get while the queue's lock is held: adds without taking it again.
class LockedQueue final : public PoolQueue {
public:
    explicit LockedQueue(Queue& q) : q_(q) {}
    void add(PoolTask task) override { q_.add_locked(std::move(task)); }

private:
    Queue& q_;
};

[[noreturn]] void throw_pool_error(Queue& q) {
    failure_shared = true;
    throw PoolError(q.error_tag, q.error_rank, q.error, q.error_message);
}

// A team of one: every task on the calling thread, in the hand-out order.
void run_pool_alone(PoolWork& work, std::vector<PoolTask> tasks, const PoolResultHook& on_result) {
    DepthGuard depth;
    Queue q;
    for (auto& t : tasks) q.add_locked(std::move(t));
    Queued item;
    while (q.take_local(item)) {
        try {
            if (item.task.root_only) {
                item.task.local(q);
            } else {
                const auto start = Clock::now();
                work.run_here(item.task.tag);
                LockedQueue locked(q);
                if (on_result) on_result(locked, item.task, nullptr, 0, seconds_since(start));
            }
        } catch (...) {
            const std::exception_ptr e = std::current_exception();
            q.fail_locked(item.task.tag, 0, e, describe(e).message);
            throw_pool_error(q);
        }
        --q.in_flight;
    }
}

}  // namespace

bool team_failure_shared() noexcept { return failure_shared.load(); }


FailureKind failure_kind(const std::exception& e) noexcept {
    if (const auto* a = dynamic_cast<const TeamAborted*>(&e)) return a->kind();
    if (dynamic_cast<const InvalidArgument*>(&e)) return FailureKind::invalid_input;
    if (dynamic_cast<const NumericalError*>(&e)) return FailureKind::numerical;
    return FailureKind::other;
}

#if !RHOFLOW_HAVE_MPI

MpiSession::MpiSession(int*, char***, bool, std::function<void()>) {}
MpiSession::~MpiSession() = default;
void MpiSession::abort(int code) { std::exit(code); }
int team_rank() noexcept { return 0; }
int team_size() noexcept { return 1; }
bool team_spread() noexcept { return false; }
bool team_has_mpi() noexcept { return false; }

void detail::run_pool(PoolWork& work, std::vector<PoolTask> tasks, const PoolResultHook& on_result, bool) {
    run_pool_alone(work, std::move(tasks), on_result);
}

std::string team_root_then_broadcast(const std::function<std::string()>& f) { return f(); }

std::pair<int, int> team_min_max(int value) { return {value, value}; }

int team_first_differing(std::uint64_t) { return -1; }

#else  // ------------------------------------------------------------------------ with MPI

namespace {

int world_rank = 0, world_size = 1;
bool mpi_started = false;
pid_t launcher = 0;  // the parent process at start (mpirun, orted, slurmstepd)
std::function<void()> orphaned;  // the program's response to a launcher that is gone

// A rank whose launcher is gone (mpirun killed or crashed before it could end the ranks) would
// go on alone, and rank 0 might even finish the run behind the back of a rerun: it stops itself
// instead, by SIGTERM, so that the interrupt cleanup (interrupt.hpp) removes its temporaries.
void stop_if_orphaned() {
    if (launcher == 0 || !orphaned || ::getppid() == launcher) return;
    std::cerr << "rhoflow: rank " << world_rank << ": the launcher (mpirun) is gone; stopping\n";
    orphaned();
}

constexpr int kToRoot = 71;    // worker -> rank 0: ready, done, error
constexpr int kToWorker = 72;  // rank 0 -> worker: task, stop, abort

void check(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    // The communication itself failed (a rank died, the network): nothing can be coordinated any
    // more, so end the whole job loudly.
    std::cerr << "rhoflow: rank " << world_rank << ": " << what << " failed: " << std::string(text, static_cast<std::size_t>(len))
              << "; aborting the job\n";
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();
}

// A failure's category as sent (unknown values: other).
FailureKind kind_from_wire(std::int32_t k) {
    return k == static_cast<std::int32_t>(FailureKind::invalid_input) ? FailureKind::invalid_input
           : k == static_cast<std::int32_t>(FailureKind::numerical)   ? FailureKind::numerical
                                                                      : FailureKind::other;
}

// Messages: one type byte, then fields appended as raw bytes (lengths as uint64).
struct Writer {
    std::string b;
    explicit Writer(char type) { b.push_back(type); }
    template <class T>
    Writer& pod(const T& v) {
        b.append(reinterpret_cast<const char*>(&v), sizeof v);
        return *this;
    }
    Writer& str(const std::string& s) {
        pod(static_cast<std::uint64_t>(s.size()));
        b += s;
        return *this;
    }
};
struct Reader {
    const std::string& b;
    std::size_t at = 1;
    char type() const { return b.at(0); }
    template <class T>
    T pod() {
        T v;
        if (at + sizeof v > b.size()) throw std::runtime_error("rhoflow: truncated message between ranks");
        std::memcpy(&v, b.data() + at, sizeof v);
        at += sizeof v;
        return v;
    }
    std::string str() {
        const auto n = pod<std::uint64_t>();
        if (at + n > b.size()) throw std::runtime_error("rhoflow: truncated message between ranks");
        std::string s = b.substr(at, n);
        at += n;
        return s;
    }
};

void check_size(const std::string& bytes) {
    if (bytes.size() > static_cast<std::size_t>(INT_MAX))
        throw std::runtime_error("rhoflow: a message between ranks exceeds 2 GiB; use smaller trial blocks");
}

void send(const std::string& bytes, int to, int tag) {
    check_size(bytes);
    check(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD), "MPI_Send");
}

// Receives the message `status` announced.
std::string receive(const MPI_Status& status) {
    int n = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &n), "MPI_Get_count");
    std::string bytes(static_cast<std::size_t>(n), '\0');
    check(MPI_Recv(bytes.data(), n, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
    return bytes;
}

// Polls for a message, sleeping between polls (up to 2 ms) so that a waiting rank leaves its
// core to others; `keep_waiting` is checked between polls (false: give up, returns false).
bool poll(int source, int tag, MPI_Status& status, const std::function<bool()>& keep_waiting = {}) {
    auto pause = std::chrono::microseconds(20);
    for (;;) {
        int flag = 0;
        check(MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
        if (flag) return true;
        stop_if_orphaned();
        if (keep_waiting && !keep_waiting()) return false;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(2000));
    }
}

// A worker's side of a pool.
void serve(PoolWork& work) {
    send(Writer('R').b, 0, kToRoot);
    for (;;) {
        MPI_Status st;
        poll(0, kToWorker, st);
        const std::string msg = receive(st);
        Reader r{msg};
        if (r.type() == 'S') return;
        if (r.type() == 'A') {
            const FailureKind kind = kind_from_wire(r.pod<std::int32_t>());
            failure_shared = true;
            throw TeamAborted(kind, r.str());
        }
        const auto id = r.pod<std::uint64_t>();
        const std::string input = r.str();
        const auto start = Clock::now();
        try {
            std::string out = work.run_arrived(input);
            send(Writer('D').pod(id).pod(seconds_since(start)).str(out).b, 0, kToRoot);
        } catch (...) {
            const ErrorInfo e = describe(std::current_exception());
            send(Writer('E').pod(id).pod(static_cast<std::int32_t>(e.kind)).str(e.field).str(e.message).b, 0, kToRoot);
        }
    }
}

// Rank 0's side of a pool: its main thread computes (compute_locally), a second thread serves
// the other ranks (serve_workers). The queue's lock guards the queue and main_done_; parked_,
// assigned_ and workers_seen_ belong to the serving thread.
class Leader {
public:
    Leader(PoolWork& work, std::vector<PoolTask> tasks, const PoolResultHook& on_result)
        : work_(work), on_result_(on_result), assigned_(static_cast<std::size_t>(world_size)) {
        for (auto& t : tasks) q_.add_locked(std::move(t));
    }

    void run() {
        std::thread server([this] { serve_workers(); });
        compute_locally();
        {
            std::lock_guard<std::mutex> lock(q_.mutex);
            main_done_ = true;
        }
        server.join();
        if (q_.failed) throw_pool_error(q_);
    }

private:
    // The serving thread: hands out tasks and takes results until the pool is over, then tells
    // every worker the outcome. A failure of the serving itself ends the job.
    void serve_workers() {
        try {
            while (!hand_out()) {
                MPI_Status st;
                if (poll(MPI_ANY_SOURCE, kToRoot, st, [this] { return !can_act(); })) take_message(st);
            }
            tell_outcome();
        } catch (...) {
            std::cerr << "rhoflow: rank 0: the pool's server failed: " << describe(std::current_exception()).message
                      << "\n";
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }

    // Under the lock: everything is back and rank 0's main thread is done.
    bool can_end() const {
        return main_done_ && workers_seen_ == world_size - 1 && static_cast<int>(parked_.size()) == world_size - 1;
    }

    // Whether the serving thread has something to do other than wait for a message.
    bool can_act() {
        std::lock_guard<std::mutex> lock(q_.mutex);
        return (!q_.failed && !parked_.empty() && !q_.shared.empty()) || can_end();
    }

    // Gives queued tasks to waiting workers (none after a failure); true when the pool is over.
    bool hand_out() {
        std::lock_guard<std::mutex> lock(q_.mutex);
        Queued item;
        while (!q_.failed && !parked_.empty() && q_.take_shared(item)) {
            std::string task;
            try {  // a task that cannot travel (too large) fails as itself, not the whole job
                task = Writer('T').pod(item.seq).str(work_.send(item.task.tag)).b;
                check_size(task);
            } catch (...) {
                record_failure(item, 0, describe(std::current_exception()));
                --q_.in_flight;
                q_.changed.notify_all();
                continue;
            }
            const int w = parked_.back();
            parked_.pop_back();
            send(task, w, kToWorker);
            assigned_[static_cast<std::size_t>(w)] = std::move(item);
        }
        return can_end();
    }

    // A worker's message: ready (first contact), done (with its output) or error.
    void take_message(const MPI_Status& st) {
        const std::string msg = receive(st);
        Reader r{msg};
        const int w = st.MPI_SOURCE;
        if (r.type() != 'R') {
            const auto id = r.pod<std::uint64_t>();
            Queued& item = assigned_[static_cast<std::size_t>(w)];
            if (item.seq != id) throw std::runtime_error("rhoflow: a rank returned a task it was not given");
            std::lock_guard<std::mutex> lock(q_.mutex);
            if (r.type() == 'D')
                deliver(item, r, w);
            else
                record_failure(item, w, read_error(r));
            --q_.in_flight;
            q_.changed.notify_all();
        } else {
            ++workers_seen_;
        }
        parked_.push_back(w);
    }

    // Under the lock: a worker's output to the result hook (kept after a failure too).
    void deliver(const Queued& item, Reader& r, int w) {
        const auto secs = r.pod<double>();
        const std::string out = r.str();
        try {
            LockedQueue locked(q_);
            if (on_result_) on_result_(locked, item.task, &out, w, secs);
        } catch (...) {
            const std::exception_ptr e = std::current_exception();
            q_.fail_locked(item.task.tag, 0, e, describe(e).message);
        }
    }

    static ErrorInfo read_error(Reader& r) {
        ErrorInfo e;
        e.kind = kind_from_wire(r.pod<std::int32_t>());
        e.field = r.str();
        e.message = r.str();
        return e;
    }

    // Under the lock.
    void record_failure(const Queued& item, int rank, const ErrorInfo& e) {
        const std::string message = "rank " + std::to_string(rank) + ": " + e.message;
        q_.fail_locked(item.task.tag, rank, rebuild(e, message), message);
    }

    // The outcome is known to rank 0 alone: every worker is told the same.
    void tell_outcome() {
        std::string final_msg;
        {
            std::lock_guard<std::mutex> lock(q_.mutex);
            if (q_.failed)
                final_msg = Writer('A').pod(static_cast<std::int32_t>(describe(q_.error).kind)).str(q_.error_message).b;
            else
                final_msg = Writer('S').b;
        }
        for (int w = 1; w < world_size; ++w) send(final_msg, w, kToWorker);
    }

    // Rank 0's main thread: root-only tasks first, then the largest shared one; waits while
    // others still compute (their results may queue more tasks). After a failure it hands out
    // nothing new but still accepts what comes back and runs the root-only tasks that queues
    // (a cell whose units are all done is still written), until nothing is in flight.
    void compute_locally() {
        for (;;) {
            Queued item;
            {
                std::unique_lock<std::mutex> lock(q_.mutex);
                q_.changed.wait(lock, [&] { return !q_.root.empty() || (!q_.failed && !q_.shared.empty()) || q_.in_flight == 0; });
                if (q_.failed && q_.root.empty()) break;
                if (!q_.take_local(item)) break;  // nothing queued and nothing in flight
            }
            run_local(item);
            std::lock_guard<std::mutex> lock(q_.mutex);
            --q_.in_flight;
            q_.changed.notify_all();
        }
    }

    void run_local(const Queued& item) {
        const auto start = Clock::now();
        try {
            if (item.task.root_only) {
                item.task.local(q_);
                return;
            }
            work_.run_here(item.task.tag);
            std::lock_guard<std::mutex> lock(q_.mutex);
            LockedQueue locked(q_);
            if (on_result_) on_result_(locked, item.task, nullptr, 0, seconds_since(start));
        } catch (...) {
            const ErrorInfo e = describe(std::current_exception());
            std::lock_guard<std::mutex> lock(q_.mutex);
            record_failure(item, 0, e);
        }
    }

    PoolWork& work_;
    const PoolResultHook& on_result_;
    Queue q_;
    bool main_done_ = false;
    std::vector<int> parked_;         // workers waiting for a task
    std::vector<Queued> assigned_;    // the task each worker runs
    int workers_seen_ = 0;
};

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv, bool start, std::function<void()> on_orphaned) {
    if (!start) return;  // a team of one, as without MPI
    orphaned = std::move(on_orphaned);
    int provided = 0;
    check(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    mpi_started = true;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // errors come back as codes: check() reports them
    check(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &world_size), "MPI_Comm_size");
    if (world_size > 1) launcher = ::getppid();
    if (provided < MPI_THREAD_SERIALIZED && world_size > 1) {
        if (world_rank == 0)
            std::cerr << "rhoflow: the MPI library does not support MPI_THREAD_SERIALIZED; cannot spread work\n";
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

MpiSession::~MpiSession() {
    if (mpi_started) MPI_Finalize();
}

void MpiSession::abort(int code) {
    if (mpi_started) MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
}

int team_rank() noexcept { return world_rank; }
int team_size() noexcept { return world_size; }
bool team_spread() noexcept { return world_size > 1 && pool_depth.load() == 0; }
bool team_has_mpi() noexcept { return true; }

void detail::run_pool(PoolWork& work, std::vector<PoolTask> tasks, const PoolResultHook& on_result, bool spread) {
    if (world_size == 1 || !spread || pool_depth.load() > 0) return run_pool_alone(work, std::move(tasks), on_result);
    DepthGuard depth;
    if (world_rank == 0)
        Leader(work, std::move(tasks), on_result).run();
    else
        serve(work);
}

std::string team_root_then_broadcast(const std::function<std::string()>& f) {
    if (world_size == 1) return f();
    std::string payload;
    std::exception_ptr error;
    if (world_rank == 0) {
        try {
            payload = Writer('K').str(f()).b;
        } catch (...) {
            error = std::current_exception();
            const ErrorInfo e = describe(error);
            payload = Writer('A').pod(static_cast<std::int32_t>(e.kind)).str(e.message).b;
        }
    }
    std::uint64_t n = payload.size();
    check(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
    if (n > static_cast<std::uint64_t>(INT_MAX)) throw std::runtime_error("rhoflow: a broadcast exceeds 2 GiB");
    payload.resize(n);
    check(MPI_Bcast(payload.data(), static_cast<int>(n), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    if (error) {
        failure_shared = true;
        std::rethrow_exception(error);
    }
    Reader r{payload};
    if (r.type() == 'A') {
        const FailureKind kind = kind_from_wire(r.pod<std::int32_t>());
        failure_shared = true;
        throw TeamAborted(kind, r.str());
    }
    return r.str();
}

std::pair<int, int> team_min_max(int value) {
    if (world_size == 1) return {value, value};
    int in[2] = {-value, value}, out[2] = {0, 0};
    check(MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return {-out[0], out[1]};
}

int team_first_differing(std::uint64_t digest) {
    if (world_size == 1) return -1;
    std::uint64_t root = digest;
    check(MPI_Bcast(&root, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
    const int mine = root == digest ? INT_MAX : world_rank;
    int first = INT_MAX;
    check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    return first == INT_MAX ? -1 : first;
}

#endif

}  // namespace rhoflow
