// Self-checking testbench for edge3: reset, every pair of samples, and a random run, against a model.
`timescale 1ns/1ps
module tb_edge3;
    reg clk, rst, a;
    wire rise, fall, low;
    reg m_p, m_rise, m_fall, m_low;
    integer errors, i, seed;

    edge3 dut (.clk(clk), .rst(rst), .a(a), .rise(rise), .fall(fall), .low(low));

    always #5 clk = ~clk;

    task step(input r, input x);
        begin
            rst = r; a = x;
            @(posedge clk);
            if (r) begin
                m_p = 0; m_rise = 0; m_fall = 0; m_low = 0;
            end else begin
                m_rise = x & ~m_p; m_fall = ~x & m_p; m_low = ~x & ~m_p; m_p = x;
            end
            #1;
            if (rise !== m_rise || fall !== m_fall || low !== m_low) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH at %0t: got %b%b%b, expected %b%b%b", $time,
                                          rise, fall, low, m_rise, m_fall, m_low);
            end
        end
    endtask

    initial begin
        clk = 0; errors = 0; seed = 3;
        step(1, 0);
        step(0, 0); step(0, 1); step(0, 1); step(0, 0); step(0, 0); step(1, 1); step(0, 1);
        for (i = 0; i < 2000; i = i + 1) step(($random(seed) & 63) == 0, $random(seed));
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
