// Self-checking testbench for stopwatch: reset, a run through two full minutes, pauses, and random run/reset,
// against a model that counts tenths of a second modulo 600.
`timescale 1ns/1ps
module tb_stopwatch;
    reg clk, rst, run;
    wire [3:0] tenths;
    wire [5:0] secs;
    wire lap;
    integer errors, i, seed, t, m_lap;

    stopwatch dut (.clk(clk), .rst(rst), .run(run), .tenths(tenths), .secs(secs), .lap(lap));

    always #5 clk = ~clk;

    task step(input r, input g);
        begin
            rst = r; run = g;
            @(posedge clk);
            m_lap = (!r && g && t == 599);
            if (r) t = 0;
            else if (g) t = (t + 1) % 600;
            #1;
            if (tenths !== t % 10 || secs !== t / 10 || lap !== m_lap) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH at %0t: got %0d.%0d lap %b, expected %0d.%0d lap %0d",
                                          $time, secs, tenths, lap, t / 10, t % 10, m_lap);
            end
        end
    endtask

    initial begin
        clk = 0; errors = 0; seed = 7; t = 0; m_lap = 0;
        step(1, 0);
        for (i = 0; i < 1250; i = i + 1) step(0, 1);                 // two laps and a bit
        for (i = 0; i < 20; i = i + 1) step(0, 0);                   // pause
        for (i = 0; i < 3000; i = i + 1) step(($random(seed) & 255) == 0, ($random(seed) & 7) != 0);
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
