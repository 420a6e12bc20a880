// Self-checking testbench for oddclk7: a model counts half periods of clk since the reset was released
// and checks clk_out in the middle of every half period, over several resets released in either clock phase.
`timescale 1ns/1ps
module tb_oddclk7;
    reg clk, rst_n;
    wire clk_out;
    integer errors, rises, k, cycle, seed;
    reg expect_v, fell;

    oddclk7 dut (.clk(clk), .rst_n(rst_n), .clk_out(clk_out));

    initial clk = 0;
    always #5 clk = ~clk;

    // rises: rising edges since release; fell: the falling edge after the latest rising edge has come
    always @(posedge clk or negedge rst_n)
        if (!rst_n) rises <= 0; else rises <= rises + 1;
    always @(negedge clk or negedge rst_n)
        if (!rst_n) fell <= 0; else fell <= (rises > 0);
    always @(posedge clk) fell <= 0;

    always @* begin
        if (!rst_n || rises == 0) expect_v = 0;
        else begin
            k = (rises - 1) % 7;            // 0: the rising edge where clk_out rises
            expect_v = (k < 3) || (k == 3 && !fell);
        end
    end

    task check;
        begin
            if (clk_out !== expect_v) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH t=%0t rises=%0d fell=%b: got clk_out=%b, expected %b",
                                          $time, rises, fell, clk_out, expect_v);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 11;
        rst_n = 0;
        #12 rst_n = 1;                       // released while clk is low
        for (cycle = 0; cycle < 200; cycle = cycle + 1) begin #2.5 check; end
        #1 rst_n = 0;
        #3 check;
        #6 rst_n = 1;                        // released at another point of the clock
        for (cycle = 0; cycle < 200; cycle = cycle + 1) begin #2.5 check; end
        repeat (6) begin
            #(($random(seed) & 7) + 0.3) rst_n = 0;
            #7 check;
            #(($random(seed) & 7) + 0.3) rst_n = 1;
            for (cycle = 0; cycle < 60; cycle = cycle + 1) begin #2.5 check; end
        end
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
