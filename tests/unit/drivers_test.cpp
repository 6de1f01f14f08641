// The transport's record of its drivers: the hold after the last driver stops, the count of drives, and the
// wake-up at the end of a drive that the progress thread sleeps through.
#include "transport/drivers.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace rdsm::detail {
namespace {

struct woken {
  std::atomic<int> times{0};
  static void wake(void* self) { static_cast<woken*>(self)->times.fetch_add(1); }
};

TEST(Drivers, DrivenWhileADriverIsThereAndForTheHoldAfter) {
  drivers d;
  bool mine = false;
  EXPECT_FALSE(d.driven(1'000'000, 300));
  d.drive(mine, true, 0);
  EXPECT_TRUE(mine);
  EXPECT_TRUE(d.driving());
  EXPECT_TRUE(d.driven(5'000'000, 300));
  d.drive(mine, false, 2'000'000);
  EXPECT_FALSE(d.driving());
  EXPECT_TRUE(d.driven(2'000'299, 300));
  EXPECT_FALSE(d.driven(2'000'300, 300));
}

// A waiter asks with the time of its last round, which may come before another thread's drive ended: that
// is within the hold (unsigned arithmetic once made it a hold long over, and nobody progressed).
TEST(Drivers, ATimeBeforeTheLastDriveIsWithinTheHold) {
  drivers d;
  d.drove(2'000'000);
  EXPECT_TRUE(d.driven(1'999'000, 300));
  EXPECT_EQ(d.hold_after(1'999'000, 300), 300u);
  EXPECT_EQ(d.hold_after(2'000'100, 300), 200u);
  EXPECT_EQ(d.hold_after(2'000'300, 300), 0u);
}

// A driver that reports an earlier time than another's does not shorten the hold.
TEST(Drivers, TheHoldRunsFromTheLatestDrive) {
  drivers d;
  bool a = false;
  d.drove(5'000'000);
  d.drive(a, true, 0);
  d.drive(a, false, 4'000'000);
  EXPECT_TRUE(d.driven(5'000'200, 300));
  EXPECT_EQ(d.hold_after(5'000'200, 300), 100u);
}

TEST(Drivers, ADriveIsCountedWhenTheFirstDriverComes) {
  drivers d;
  bool a = false, b = false;
  d.drive(a, true, 0);
  d.drive(b, true, 0);
  d.drive(a, false, 10);
  EXPECT_EQ(d.drives(), 1u);  // b still drives: the same drive
  d.drive(a, true, 0);
  d.drive(a, true, 0);  // already a driver: nothing changes
  EXPECT_EQ(d.drives(), 1u);
  d.drive(a, false, 20);
  d.drive(b, false, 20);
  d.drive(b, true, 0);
  EXPECT_EQ(d.drives(), 2u);
  d.drive(b, false, 30);
}

TEST(Drivers, TheLastDriverToStopWakesTheAwaitingThreadOnce) {
  drivers d;
  woken w;
  d.on_drive_end(&woken::wake, &w);
  bool a = false, b = false;
  EXPECT_FALSE(d.await_drive_end());  // no drive: nothing to sleep through
  d.drive(a, true, 0);
  d.drive(b, true, 0);
  ASSERT_TRUE(d.await_drive_end());
  d.drive(a, false, 1);
  EXPECT_EQ(w.times.load(), 0);  // b still drives
  d.drive(b, false, 2);
  EXPECT_EQ(w.times.load(), 1);
  d.drive(a, true, 0);
  d.drive(a, false, 3);  // nobody awaits this one
  EXPECT_EQ(w.times.load(), 1);
}

TEST(Drivers, AnAwaitThatEndedOtherwiseIsNotWokenLater) {
  drivers d;
  woken w;
  d.on_drive_end(&woken::wake, &w);
  bool a = false;
  d.drive(a, true, 0);
  ASSERT_TRUE(d.await_drive_end());
  d.end_await();  // woken by something else
  d.drive(a, false, 1);
  EXPECT_EQ(w.times.load(), 0);
}

// The thread that awaits and the driver that stops race: whichever order they take, the end is not missed
// (await_drive_end sees no driver, or the driver sees the await and wakes).
TEST(Drivers, AnAwaitRacingTheDrivesEndIsNeverLeftAsleep) {
  for (int round = 0; round < 2000; ++round) {
    drivers d;
    woken w;
    d.on_drive_end(&woken::wake, &w);
    bool a = false;
    d.drive(a, true, 0);
    std::atomic<bool> go{false};
    std::thread driver([&] {
      while (!go.load()) {
      }
      d.drive(a, false, 1);
    });
    go.store(true);
    const bool sleeps = d.await_drive_end();
    driver.join();
    // A driver that stops between the await's flag and its look may wake a thread that then does not sleep:
    // a spurious wake-up, harmless. Never none for a sleep, never two.
    if (sleeps) EXPECT_EQ(w.times.load(), 1) << "round " << round;
    else EXPECT_LE(w.times.load(), 1) << "round " << round;
  }
}

}  // namespace
}  // namespace rdsm::detail
