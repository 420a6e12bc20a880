// Self-checking testbench for updown12: reset, both wrap-arounds, holds, and random enable/direction runs,
// against a model that counts modulo 4096.
`timescale 1ns/1ps
module tb_updown12;
    reg clk, rst, en, up;
    wire [11:0] q;
    reg  [11:0] m_q;
    integer errors, i, seed;

    updown12 dut (.clk(clk), .rst(rst), .en(en), .up(up), .q(q));

    always #5 clk = ~clk;

    task step(input r, input e, input u);
        begin
            rst = r; en = e; up = u;
            @(posedge clk);
            if (r) m_q = 12'd0;
            else if (e) m_q = u ? m_q + 12'd1 : m_q - 12'd1;
            #1;
            if (q !== m_q) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH at %0t: got q=%h, expected %h", $time, q, m_q);
            end
        end
    endtask

    initial begin
        clk = 0; errors = 0; seed = 12; m_q = 0;
        step(1, 0, 0);
        step(0, 1, 0);                                       // 0 -> FFF
        step(0, 1, 1);                                       // FFF -> 0
        for (i = 0; i < 4100; i = i + 1) step(0, 1, 1);      // up through the top
        for (i = 0; i < 20; i = i + 1) step(0, 0, i % 2);    // hold
        for (i = 0; i < 4200; i = i + 1) step(0, 1, 0);      // down through zero
        step(1, 1, 1);
        for (i = 0; i < 3000; i = i + 1) step(($random(seed) & 63) == 0, $random(seed), $random(seed));
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
