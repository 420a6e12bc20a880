// Self-checking testbench for period_div: periods 1, 2, 3, 7, 1023, period 0 (the count wraps at 1024), a
// period changed under a running count, and random periods, against an integer model.
`timescale 1ns/1ps
module tb_period_div;
    reg clk, rst;
    reg [9:0] period;
    wire tick, wave;
    integer errors, i, seed, c, m_tick, m_wave;

    period_div dut (.clk(clk), .rst(rst), .period(period), .tick(tick), .wave(wave));

    always #5 clk = ~clk;

    task step(input r, input [9:0] p);
        begin
            rst = r; period = p;
            @(posedge clk);
            if (r) begin c = 0; m_tick = 0; m_wave = 0; end
            else if (c == p - 1) begin c = 0; m_tick = 1; m_wave = 1 - m_wave; end
            else begin c = (c + 1) % 1024; m_tick = 0; end
            #1;
            if (tick !== m_tick || wave !== m_wave) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH at %0t: period %0d got tick %b wave %b, expected %0d %0d",
                                          $time, p, tick, wave, m_tick, m_wave);
            end
        end
    endtask

    initial begin
        clk = 0; errors = 0; seed = 5; c = 0; m_tick = 0; m_wave = 0;
        step(1, 10'd1);
        for (i = 0; i < 20; i = i + 1) step(0, 10'd1);
        for (i = 0; i < 20; i = i + 1) step(0, 10'd2);
        for (i = 0; i < 30; i = i + 1) step(0, 10'd3);
        for (i = 0; i < 50; i = i + 1) step(0, 10'd7);
        for (i = 0; i < 2100; i = i + 1) step(0, 10'd1023);
        step(1, 10'd0);
        for (i = 0; i < 2100; i = i + 1) step(0, 10'd0);            // never matches: wraps at 1024
        for (i = 0; i < 40; i = i + 1) step(0, 10'd5);              // from a count above the period
        for (i = 0; i < 3000; i = i + 1) step(($random(seed) & 511) == 0, (i % 300 == 0) ? ($random(seed) & 31) : period);
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
