"""The schedule is seeded, Poisson and the same for every framework of a round."""
import statistics

from collect.load import arrivals


def test_same_seed_same_schedule_and_rounds_differ():
    a = arrivals.offsets(200, 5000, arrivals.seed_of(7, "rest", 1, 2, 1))
    assert a == arrivals.offsets(200, 5000, arrivals.seed_of(7, "rest", 1, 2, 1))
    assert a != arrivals.offsets(200, 5000, arrivals.seed_of(7, "rest", 1, 2, 2))
    assert a != arrivals.offsets(200, 5000, arrivals.seed_of(8, "rest", 1, 2, 1))


def test_poisson_gaps_have_the_rates_mean_and_spread():
    times = arrivals.offsets(500, 60_000, arrivals.seed_of(1, "graphql", 18, 3, 1))
    gaps = [b - a for a, b in zip(times, times[1:])]
    # 30,000 arrivals: the mean gap is 2 ms within a few %, and exponential gaps have sd = mean.
    assert abs(len(times) / 60 - 500) < 15
    assert abs(statistics.mean(gaps) - 2.0) < 0.05
    assert abs(statistics.pstdev(gaps) - 2.0) < 0.15
    assert times == sorted(times) and 0 <= times[0] and times[-1] < 60_000


def test_the_file_a_group_reads(tmp_path):
    arrivals.write(tmp_path / "s.csv", [3, 10, 10, 42])
    assert (tmp_path / "s.csv").read_text() == "offset_ms\n3\n10\n10\n42\n"


def test_engines_share_the_schedule_arrival_for_arrival():
    times = arrivals.offsets(300, 7000, arrivals.seed_of(3, "rest", 1, 1, 1))
    three = arrivals.shares(times, [34, 33, 33])
    assert sorted(t for share in three for t in share) == times
    assert all(share == sorted(share) for share in three)
    assert [len(s) for s in three] == [len(times[i::3]) for i in range(3)]
    # Each share is a thinned Poisson process: a third of the rate.
    assert all(abs(len(s) / 7 - 100) < 15 for s in three)
    # An engine without a thread of the pool gets no arrival; the others take them all.
    idle = arrivals.shares(times, [1, 0, 1])
    assert idle[1] == [] and sorted(idle[0] + idle[2]) == times
