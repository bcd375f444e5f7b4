// A test program for interrupt.hpp: it enables the interrupt cleanup like rhoflow's main() and
// then writes output for up to a minute, so that a test can interrupt it mid-write.
//   interrupt_helper stage FOLDER   a StagedDirectory filled by two threads, then committed
//   interrupt_helper atomic FILE    write_file_atomic(FILE, 8 MiB) over and over
#include <chrono>
#include <cstdio>
#include <exception>
#include <fmt/format.h>
#include <string>
#include <thread>

#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/interrupt.hpp"
#include "rhoflow/io/output_dir.hpp"

namespace {

int run(int argc, char** argv) {
    if (argc != 3) return 2;
    const std::string mode = argv[1];
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    if (mode == "stage") {
        rhoflow::StagedDirectory out(argv[2]);
        const std::string block(65536, 'x');
        std::thread worker([&] {
            try {
                for (int i = 0; std::chrono::steady_clock::now() < end; ++i)
                    rhoflow::write_file_atomic(out.path() / "worker" / fmt::format("w{}", i % 100), block);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "rhoflow-test-helper: worker: %s\n", e.what());
            }
        });
        for (int i = 0; std::chrono::steady_clock::now() < end; ++i) {
            rhoflow::write_file_atomic(out.path() / fmt::format("f{}", i % 100), block);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        worker.join();
        out.commit();
        return 0;
    }
    if (mode == "atomic") {
        const std::string content(8 << 20, 'y');
        while (std::chrono::steady_clock::now() < end) rhoflow::write_file_atomic(argv[2], content);
        return 0;
    }
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    rhoflow::enable_interrupt_cleanup("rhoflow-test-helper");
    try {  // like rhoflow's dispatch(): errors (e.g. a write into a folder being removed) end in main
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rhoflow-test-helper: error: %s\n", e.what());
        return 1;
    }
}
