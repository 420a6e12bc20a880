// Self-checking testbench for idle_pipe. Inputs change on the falling edge; outputs are
// checked 1 ns later against a model that keeps the age of the request in flight.
`timescale 1ns/1ps
module tb_idle_pipe;
    reg        clk, rst, start;
    reg  [7:0] din;
    wire       busy, done;
    wire [7:0] dout;
    integer    age;          // 0: nothing in flight; k: accepted k edges ago (1..8)
    reg  [7:0] held;
    integer    errors, n, seed, r, accepted;
    reg        e_busy, e_done;
    reg  [7:0] e_dout;

    idle_pipe dut (.clk(clk), .rst(rst), .start(start), .din(din), .busy(busy), .done(done), .dout(dout));

    initial clk = 0;
    always #5 clk = ~clk;

    always @(posedge clk) begin
        if (rst) age <= 0;
        else if (age == 0) begin
            if (start) begin age <= 1; held <= din; accepted <= accepted + 1; end
        end else if (age == 8) age <= 0;
        else age <= age + 1;
    end

    task check;
        begin
            #1;
            e_busy = (age != 0);
            e_done = (age == 8);
            e_dout = e_done ? held : 8'd0;
            if (busy !== e_busy || done !== e_done || dout !== e_dout) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH t=%0t rst=%b start=%b din=%h: got busy=%b done=%b dout=%h, expected busy=%b done=%b dout=%h",
                             $time, rst, start, din, busy, done, dout, e_busy, e_done, e_dout);
            end
        end
    endtask

    task step(input r_i, input s_i, input [7:0] d_i);
        begin
            @(negedge clk);
            rst = r_i; start = s_i; din = d_i;
            check;
        end
    endtask

    initial begin
        errors = 0; seed = 9; accepted = 0;
        rst = 1; start = 0; din = 0;
        step(1, 1, 8'hFF);
        // directed: one request, start held high the whole time (back-to-back acceptance)
        step(0, 1, 8'hA5);
        for (n = 0; n < 40; n = n + 1) step(0, 1, n * 37);
        // single requests with idle gaps, extreme data
        step(0, 0, 8'h00);
        step(0, 1, 8'hFF); for (n = 0; n < 10; n = n + 1) step(0, 0, 8'h00);
        step(0, 1, 8'h00); for (n = 0; n < 10; n = n + 1) step(0, 0, 8'hFF);
        step(0, 1, 8'h81); for (n = 0; n < 3; n = n + 1) step(0, 1, 8'h7E);
        // reset in flight, with start asserted
        step(1, 1, 8'h3C); step(0, 1, 8'hC3); step(0, 0, 8'h00); step(1, 0, 8'h00);
        for (n = 0; n < 12; n = n + 1) step(0, 0, 8'h00);
        // random: reset 1/128, start density varies
        for (n = 0; n < 5000; n = n + 1) begin
            r = $random(seed);
            step(r[6:0] == 7'd0, (n % 1000 < 500) ? r[8] : (r[11:9] == 3'd0), $random(seed));
        end
        @(negedge clk);
        if (errors == 0 && accepted > 200) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors + (accepted > 200 ? 0 : 1));
        $finish;
    end
endmodule
