"""The process's gate per provider: one ceiling for every jury runner, whatever thread and
event loop it runs on, and no slot lost to a cancelled waiter."""

import asyncio
import threading

from assay.judges.limits import ProviderGate, provider_gate, share_per_process


def test_runners_on_separate_threads_and_loops_share_one_ceiling() -> None:
    gate = ProviderGate(3)
    lock, state = threading.Lock(), {"now": 0, "peak": 0, "done": 0}

    async def call() -> None:
        async with gate:
            with lock:
                state["now"] += 1
                state["peak"] = max(state["peak"], state["now"])
            await asyncio.sleep(0.005)
            with lock:
                state["now"] -= 1
                state["done"] += 1

    async def runner() -> None:  # one partition's jury: its own loop, 10 calls at once
        await asyncio.gather(*(call() for _ in range(10)))

    threads = [threading.Thread(target=asyncio.run, args=(runner(),)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert state["done"] == 40
    assert state["peak"] == 3 and gate.most_inflight == 3  # full use of the ceiling, never above it
    assert gate.inflight == 0


def test_a_cancelled_waiter_gives_its_slot_back() -> None:
    async def scenario() -> None:
        gate = ProviderGate(1)
        await gate.acquire()
        waiting = asyncio.create_task(gate.acquire())
        await asyncio.sleep(0)
        waiting.cancel()
        gate.release()  # the slot may be on its way to the cancelled waiter: it must come back
        await asyncio.sleep(0.01)
        assert gate.inflight == 0
        await asyncio.wait_for(gate.acquire(), timeout=1)
        gate.release()
        assert gate.inflight == 0

    asyncio.run(scenario())


def test_one_gate_per_provider_and_ceiling_for_the_process() -> None:
    assert provider_gate("127.0.0.1:9", 4) is provider_gate("127.0.0.1:9", 4)
    assert provider_gate("127.0.0.1:9", 4) is not provider_gate("127.0.0.1:10", 4)
    assert provider_gate("127.0.0.1:9", 4) is not provider_gate("127.0.0.1:9", 8)


def test_each_dask_worker_process_takes_its_share_of_the_ceiling() -> None:
    from prefect.task_runners import ThreadPoolTaskRunner

    from assay.flows.runners import processes_of

    assert processes_of(ThreadPoolTaskRunner()) == 1  # a Dask cluster's count: tests/flows/test_concurrency_budget.py
    assert [share_per_process(32, n) for n in (1, 2, 3)] == [32, 16, 10]
    assert share_per_process(1, 2) == 1  # every process may still send
